/**
 * Rate-limit pacing against a local endpoint that enforces a per-minute limit over one-second
 * windows, as providers do (600 a minute = at most 10 in any second; 429 with Retry-After beyond):
 * `--requests` chat calls at `--concurrency` through hisrag's OpenAI generator, in three modes —
 * `rateLimit.requestsPerMinute` configured; no setting but the endpoint sends `x-ratelimit-*`
 * headers (OpenAI); no setting and no headers (DeepSeek, vLLM: only retries on 429) — printing the
 * 429s received, the requests answered and the rate achieved as a share of the limit.
 *
 *   node --import tsx scripts/bench-rate-limit.ts [--rpm 600] [--requests 200] [--concurrency 8]
 */
import { parseArgs } from 'node:util';
import { OpenAIGenerator } from '../src/generation/openai.js';
import { renderTextTable } from '../src/report/table.js';
import { startOpenAIServer } from '../test/helpers/openaiServer.js';

const { values } = parseArgs({ options: { rpm: { type: 'string', default: '600' }, requests: { type: 'string', default: '200' }, concurrency: { type: 'string', default: '8' } } });
const rpm = Number(values.rpm);
const n = Number(values.requests);

const rows: string[][] = [];
for (const mode of ['configured', 'headers', 'neither'] as const) {
  const server = await startOpenAIServer({ rateLimit: { requestsPerMinute: rpm, headers: mode === 'headers' ? 'openai' : 'none' } });
  const generator = new OpenAIGenerator({
    baseURL: server.url,
    model: 'm',
    temperature: 0,
    headers: {},
    extraBody: {},
    timeoutMs: 10_000,
    concurrency: Number(values.concurrency),
    retries: 10,
    retryBaseMs: 100,
    retryMaxMs: 5000,
    unavailableAfterMs: 60_000,
    retryAfterMaxMs: 60_000,
    ...(mode === 'configured' ? { rateLimit: { requestsPerMinute: rpm } } : {}),
  });
  const started = Date.now();
  const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => generator.generate([{ role: 'user', content: `问题 ${i}` }])));
  const seconds = (Date.now() - started) / 1000;
  const answered = results.filter((r) => r.status === 'fulfilled').length;
  const refused = server.chatRequests().filter((r) => r.rateLimited).length;
  rows.push([mode, String(n), String(answered), String(refused), (answered / seconds).toFixed(2), `${((100 * answered) / seconds / (rpm / 60)).toFixed(1)}%`, seconds.toFixed(1)]);
  await server.close();
}
console.log(`endpoint: ${rpm} requests a minute, enforced as ${Math.floor(rpm / 60)} in any second; ${n} requests at concurrency ${values.concurrency}`);
console.log(renderTextTable(['mode', 'requests', 'answered', '429s', 'answers/s', 'share of the limit', 'seconds'], rows));
