import { afterEach } from 'vitest';
import { closeResponseCaches } from '../../src/generation/responseCache.js';
import type { ChatMessage } from '../../src/prompting/types.js';
import { startOpenAIServer, type OpenAIServer, type StartOptions } from './openaiServer.js';

/** The generator tests' question: a system prompt and one user turn. */
export const historyQuestion: ChatMessage[] = [
  { role: 'system', content: '你是历史学家。' },
  { role: 'user', content: '【问题】王安石变法始于哪一年？' },
];

/**
 * Local OpenAI-protocol servers that live for one test: the returned function starts one, and every
 * server it started is closed after each test (with the response caches, unless `keepCaches`).
 */
export function serverPerTest(options: { keepCaches?: boolean } = {}): (start?: StartOptions) => Promise<OpenAIServer> {
  let servers: OpenAIServer[] = [];
  afterEach(async () => {
    if (!options.keepCaches) closeResponseCaches();
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
  });
  return async (start = {}) => {
    const started = await startOpenAIServer(start);
    servers.push(started);
    return started;
  };
}
