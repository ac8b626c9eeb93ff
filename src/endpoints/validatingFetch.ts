import { z } from 'zod';
import { formatZodIssues } from '../errors.js';
import { MalformedResponseError } from './generationError.js';

/** The least a chat completion must carry for its answer to be trusted. */
export const ChatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.union([z.string(), z.null()]).optional(),
          reasoning_content: z.union([z.string(), z.null()]).optional(),
        }),
      }),
    )
    .min(1),
});

type Fetch = typeof fetch;

/**
 * A `fetch` for the OpenAI SDK that checks successful non-streamed bodies before the SDK and
 * LangChain read them, so a truncated or wrong-shaped body becomes a MalformedResponseError
 * (retried, then recorded) instead of a TypeError deep inside the client.
 */
export function validatingFetch(base: Fetch = fetch): Fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.ok) return response;
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) return response;
    const body = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new MalformedResponseError(`response body is not valid JSON (${body.length} bytes: ${JSON.stringify(body.slice(0, 60))}…)`);
    }
    const parsed = ChatCompletionSchema.safeParse(json);
    if (!parsed.success) throw new MalformedResponseError(`response is not a chat completion: ${formatZodIssues(parsed.error)}`);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
