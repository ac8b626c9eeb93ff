import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type ChatRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli } from '../helpers/runCli.js';
import { distinctRequests } from './batchFixtures.js';
import { deterministicResponder, endpointExperimentConfig } from '../experiment/endpointFixtures.js';

const strategies = ['closed-book', 'rag', { name: 'iter-retgen', rounds: 2 }];
const fast = { concurrency: 4, retries: 1, retryBaseMs: 5, timeoutMs: 5000 };

/** What `vllm run-batch` does with a requests file: one output line per request, in the Batch API's format. */
function answerOffline(input: string, output: string): number {
  const lines = readFileSync(input, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { custom_id: string; body: ChatRequestBody });
  const out = lines.map((line, i) => {
    const content = deterministicResponder(line.body);
    const prompt = line.body.messages.reduce((n, m) => n + String(m.content ?? '').length, 0);
    return {
      id: `vllm-${i}`,
      custom_id: line.custom_id,
      response: { status_code: 200, request_id: `vllm-batch-${i}`, body: { id: `cmpl-${i}`, object: 'chat.completion', model: line.body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: prompt, completion_tokens: content.length, total_tokens: prompt + content.length } } },
      error: null,
    };
  });
  writeFileSync(output, out.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return lines.length;
}

describe('hisrag batch export / import (vllm run-batch)', () => {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('answers the whole grid offline, round by round; the run then calls no endpoint and scores as a live run', async () => {
    const server = await startOpenAIServer({ respond: deterministicResponder });
    servers.push(server);
    const root = mkdtempSync(join(tmpdir(), 'hisrag-offline-batch-'));
    const liveDir = join(root, 'live');
    const offlineDir = join(root, 'offline');
    mkdirSync(liveDir);
    mkdirSync(offlineDir);
    const live = await runCli(['run', endpointExperimentConfig(liveDir, server.url, fast, { strategies }), '--run-id', 'live', '--quiet']);
    expect(live.code, live.stderr).toBe(0);
    // Distinct requests of the live run (an offline round asks each once; a live run may ask one twice at once).
    const liveCalls = distinctRequests(server).size;

    const config = endpointExperimentConfig(offlineDir, server.url, { ...fast, cache: join(offlineDir, 'cache.sqlite') }, { strategies });
    let rounds = 0;
    let answered = 0;
    for (;;) {
      const out = join(offlineDir, `round-${rounds + 1}`);
      const exported = await runCli(['batch', 'export', config, '--out', out, '--no-progress']);
      expect(exported.code, exported.stderr).toBe(0);
      if (/nothing left to ask/.test(exported.stdout)) break;
      rounds++;
      expect(rounds).toBeLessThan(6);
      for (const file of readdirSync(out).filter((f) => f.endsWith('.jsonl') && !f.endsWith('.output.jsonl'))) {
        const output = join(out, file.replace(/\.jsonl$/, '.output.jsonl'));
        answered += answerOffline(join(out, file), output);
        const imported = await runCli(['batch', 'import', output, '--cache', join(offlineDir, 'cache.sqlite')]);
        expect(imported.code, imported.stderr).toBe(0);
        expect(imported.stdout).toMatch(/answers imported/);
      }
    }
    // The answers first; the judge (and iter-retgen's later step) only once earlier answers are imported.
    expect(rounds).toBeGreaterThanOrEqual(2);
    expect(answered).toBe(liveCalls);

    const before = server.chatRequests().length;
    const offline = await runCli(['run', config, '--run-id', 'offline', '--quiet']);
    expect(offline.code, offline.stderr).toBe(0);
    expect(server.chatRequests().length).toBe(before);
    const means = (dir: string) => (JSON.parse(readFileSync(join(dir, 'runs', dir === liveDir ? 'live' : 'offline', 'summary.json'), 'utf8')) as { cells: { score: { mean: number } }[] }).cells.map((c) => c.score.mean);
    expect(means(offlineDir)).toEqual(means(liveDir));
  }, 300_000);

  it('names the file and line of a malformed output file, and exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-import-bad-'));
    writeFileSync(join(dir, 'out.jsonl'), '{"custom_id": "a", "response": {"status_code": 200, "body": {}}}\n{not json\n');
    const result = await runCli(['batch', 'import', join(dir, 'out.jsonl'), '--cache', join(dir, 'c.sqlite')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/out\.jsonl:2: not valid JSON/);
  }, 60_000);
});
