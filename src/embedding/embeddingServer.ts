import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { DataFileError } from '../errors.js';
import { DEFAULT_MAX_BODY_BYTES, HttpError, readJson, startJsonServer, type ModelServer, type ModelServerOptions } from '../models/modelServer.js';
import type { TextEmbedder } from './types.js';

export interface EmbeddingServerOptions extends ModelServerOptions {
  /** Embeds the inputs as documents (no query prefix: the API cannot tell queries apart). */
  embedder: TextEmbedder & {
    countTokens?(texts: string[]): Promise<number[]>;
    /** Present on an image-capable embedder (`clip`): chat-style requests with `image_url` parts are embedded by it. */
    embedImageData?(data: Uint8Array[], name?: (i: number) => string): Promise<number[][]>;
  };
  /** Most inputs per request. */
  maxInputs?: number;
}

/** `url` is the API root, e.g. `http://127.0.0.1:8080/v1` (what an OpenAI client takes as baseURL). */
export type EmbeddingServer = ModelServer;

const ContentPartSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string() }) }),
]);

/** vLLM's chat-style embeddings input: one conversation, embedded as one vector. */
const MessagesSchema = z
  .array(z.object({ role: z.string(), content: z.union([z.string(), z.array(ContentPartSchema)]) }))
  .min(1, { error: 'messages must hold at least one message' });

const EmbeddingRequestSchema = z.object({
  input: z
    .union([z.string(), z.array(z.string()).min(1)], {
      error: 'input must be a string or a non-empty array of strings (token arrays are not supported)',
    })
    .optional(),
  messages: MessagesSchema.optional(),
  model: z.string().optional(),
  encoding_format: z.enum(['float', 'base64']).default('float'),
  user: z.string().optional(),
  dimensions: z.number().int().positive().optional(),
});

/** base64 of little-endian float32 — what OpenAI's SDK decodes when it asks for `base64`. */
export function encodeBase64Float32(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString('base64');
}

/**
 * An OpenAI-compatible embeddings server over a local embedder: `POST /v1/embeddings` (string
 * or array input, `encoding_format` float or base64, token usage; or vLLM's chat-style `messages`
 * with one `image_url` data URL, for an image-capable embedder) and `GET /v1/models`.
 */
export async function startEmbeddingServer(options: EmbeddingServerOptions): Promise<EmbeddingServer> {
  const { embedder, host = '127.0.0.1', port = 0, maxBodyBytes = DEFAULT_MAX_BODY_BYTES, maxInputs = 2048 } = options;
  const identity = await embedder.identity();
  const modelName = options.modelName ?? identity.model;

  async function embeddings(request: IncomingMessage): Promise<unknown> {
    const parsed = EmbeddingRequestSchema.safeParse(await readJson(request, maxBodyBytes));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HttpError(400, issue.message, null, issue.path.join('.') || null);
    }
    const body = parsed.data;
    if (body.model !== undefined && body.model !== modelName) {
      throw new HttpError(404, `model "${body.model}" is not served here (serving "${modelName}")`, 'model_not_found', 'model');
    }
    if (body.dimensions !== undefined && body.dimensions !== identity.dimension) {
      throw new HttpError(400, `dimensions: this model gives ${identity.dimension}`, null, 'dimensions');
    }
    if ((body.input === undefined) === (body.messages === undefined)) throw new HttpError(400, 'give either input or messages', null, 'input');
    const { vectors, promptTokens } = body.messages ? await embedMessages(body.messages) : await embedInputs(body.input!);
    return {
      object: 'list',
      model: modelName,
      data: vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: body.encoding_format === 'base64' ? encodeBase64Float32(vector) : vector,
      })),
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    };
  }

  async function embedInputs(input: string | string[]): Promise<{ vectors: number[][]; promptTokens: number }> {
    const inputs = typeof input === 'string' ? [input] : input;
    if (inputs.length > maxInputs) throw new HttpError(400, `at most ${maxInputs} inputs per request`, null, 'input');
    const [vectors, tokens] = await Promise.all([embedder.embedDocuments(inputs), embedder.countTokens?.(inputs)]);
    return { vectors, promptTokens: tokens ? tokens.reduce((a, b) => a + b, 0) : 0 };
  }

  /**
   * A chat-style request: with an image part, its image is embedded (the text parts are the model's
   * instruction, which a CLIP-family model has no use for); without one, the texts joined.
   */
  async function embedMessages(messages: z.infer<typeof MessagesSchema>): Promise<{ vectors: number[][]; promptTokens: number }> {
    const parts = messages.flatMap((m) => (typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content));
    const images = parts.flatMap((part) => (part.type === 'image_url' ? [part.image_url.url] : []));
    if (images.length === 0) return embedInputs(parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n'));
    if (images.length > 1) throw new HttpError(400, `one image per request (got ${images.length})`, null, 'messages');
    if (!embedder.embedImageData) throw new HttpError(400, `model "${modelName}" embeds text only`, null, 'messages');
    const match = /^data:image\/[\w.+-]+;base64,(.*)$/s.exec(images[0]!);
    if (!match) throw new HttpError(400, 'image_url.url must be a data URL (data:image/…;base64,…): this server fetches nothing', null, 'messages');
    const vectors = await embedder.embedImageData([Buffer.from(match[1]!, 'base64')], () => 'image_url of the request').catch((error: unknown) => {
      throw error instanceof DataFileError ? new HttpError(400, error.message, null, 'messages') : error;
    });
    return { vectors, promptTokens: 0 };
  }

  return startJsonServer({
    host,
    port,
    modelName,
    basePath: '/v1',
    routes: { 'POST /v1/embeddings': embeddings },
    errorBody: (error, status) => ({
      error: {
        message: error instanceof Error ? error.message : String(error),
        type: status >= 500 ? 'server_error' : 'invalid_request_error',
        param: error instanceof HttpError ? error.param : null,
        code: error instanceof HttpError ? error.code : null,
      },
    }),
  });
}
