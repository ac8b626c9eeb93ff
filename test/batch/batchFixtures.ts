import { responseCacheKey } from '../../src/generation/responseCache.js';
import type { ChatRequestBody, OpenAIServer } from '../helpers/openaiServer.js';

/**
 * The response-cache keys (= batch custom_ids) of the live chat requests a server received, for
 * generators with the fixtures' parameters (temperature 0, no maxTokens, no extra body).
 */
export function distinctRequests(server: OpenAIServer): Set<string> {
  return new Set(
    server.chatRequests().map((r) => {
      const body = r.body as ChatRequestBody;
      return responseCacheKey({ model: body.model, messages: body.messages.map(({ role, content }) => ({ role, content })), params: { temperature: 0, extraBody: {} } });
    }),
  );
}
