import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';
import { runCli } from '../helpers/runCli.js';
import { answerResponder, claimResponder } from './claimServer.js';

/**
 * Issue 25's guarantee "a config naming an unknown baseline or a checker that cannot run is an
 * error before any call": exit 2, a message naming the field, and the endpoints see no request
 * (the claim endpoint for `hisrag diagnose`, the run's model for `hisrag run`). The run directory
 * is left as it was. The cases are independent (each is rejected before anything is written), so
 * they run concurrently.
 */

const UNSET = 'HISRAG_TEST_SURELY_UNSET_KEY_VAR';

describe('diagnostics settings that cannot work are errors before any call', () => {
  let dir: string;
  let runDir: string;
  let claims: OpenAIServer;
  let model: OpenAIServer;
  let endpoint: Record<string, unknown>;
  let summaryBefore: string;
  let itemsBefore: string;
  const flow = (value: unknown) => stringify(value, { flow: true }).trim();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-diagnose-config-'));
    claims = await startOpenAIServer({ respond: claimResponder });
    model = await startOpenAIServer({ respond: answerResponder });
    endpoint = { baseURL: claims.url, retryBaseMs: 1, retryMaxMs: 5, timeoutMs: 5_000 };
    const config = demoConfigIn(
      dir,
      (c) => {
        c.benchmark.limit = 3;
        c.retrieval.k = [10];
      },
      'plain.yaml',
    );
    const run = await runCli(['run', config, '--run-id', 'plain', '--no-progress', '--quiet']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    runDir = join(dir, 'runs', 'plain');
    summaryBefore = readFileSync(join(runDir, 'summary.json'), 'utf8');
    itemsBefore = readFileSync(join(runDir, 'items.jsonl'), 'utf8');
  }, 120_000);

  afterAll(async () => {
    await claims?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** `hisrag diagnose` with a working claim endpoint plus `sets`: exit 2, the message, no request, nothing written. */
  async function expectRejected(sets: string[], message: RegExp): Promise<void> {
    const valid = ['--set', `checker=${flow({ name: 'openai', model: 'checker', ...endpoint })}`, '--set', `extractor=${flow({ name: 'openai', model: 'extractor', ...endpoint })}`];
    const result = await runCli(['diagnose', runDir, '--no-progress', ...valid, ...sets], { env: { [UNSET]: '' } });
    expect(result.stderr).not.toContain('internal error');
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(claims.requests).toHaveLength(0);
    // Rejected before the run directory is touched.
    expect(existsSync(join(runDir, 'diagnostics.json'))).toBe(false);
    expect(existsSync(join(runDir, 'diagnostics.jsonl'))).toBe(false);
    expect(readFileSync(join(runDir, 'summary.json'), 'utf8')).toBe(summaryBefore);
    expect(readFileSync(join(runDir, 'items.jsonl'), 'utf8')).toBe(itemsBefore);
    expect(readdirSync(runDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }

  it.concurrent('an unknown baseline', async () => {
    await expectRejected(['--set', 'baseline=nope'], /diagnostics\.baseline: unknown condition "nope" \(this run's conditions: closed-book, rag@10\)/);
  });

  it.concurrent('an unknown checker', async () => {
    await expectRejected(['--set', 'checker={name: nope}'], /diagnostics\.checker\.name: unknown claim checker "nope" \(known: [^)]*lexical[^)]*openai/);
  });

  it.concurrent('an unknown extractor', async () => {
    await expectRejected(['--set', 'extractor={name: nope}'], /diagnostics\.extractor\.name: unknown claim extractor "nope"/);
  });

  it.concurrent('a checker that cannot run: its API key variable is not set', async () => {
    const checker = { name: 'openai', model: 'checker', apiKeyEnv: UNSET, ...endpoint };
    await expectRejected(['--set', `checker=${flow(checker)}`], new RegExp(`diagnostics\\.checker\\b[^\\n]*${UNSET}[^\\n]*not set`));
  });

  it.concurrent('a checker with a bad parameter', async () => {
    await expectRejected(['--set', `checker=${flow({ name: 'openai', model: 'checker', ...endpoint, claimsPerCall: 0 })}`], /diagnostics\.checker\.claimsPerCall/);
  });

  it.concurrent('an unknown condition to diagnose', async () => {
    await expectRejected(['--set', 'conditions=[nope]'], /diagnostics\.conditions\[0\]: unknown condition "nope"/);
  });

  it.concurrent('an invalid setting', async () => {
    await Promise.all([
      expectRejected(['--set', 'delta=-1'], /diagnostics\.delta/),
      expectRejected(['--set', 'prefilter=everything'], /diagnostics\.prefilter/),
      expectRejected(['--set', 'nonsense=1'], /diagnostics[^\n]*nonsense/),
    ]);
  });

  it.concurrent('hisrag run of a config whose diagnostics section names an unknown baseline: exit 2 before the first answer', async () => {
    const config = demoConfigIn(
      dir,
      (c) => {
        c.benchmark.limit = 3;
        c.retrieval.k = [10];
        c.models = [{ name: 'openai', baseURL: model.url, model: 'm', label: 'm', retryBaseMs: 1, retryMaxMs: 5, timeoutMs: 5_000 }];
        c.diagnostics = { ...c.diagnostics, baseline: 'nope' };
      },
      'bad-baseline.yaml',
      'demo-diagnostics.yaml',
    );
    const result = await runCli(['run', config, '--run-id', 'bad', '--no-progress']);
    expect(result.stderr).not.toContain('internal error');
    expect(result.stderr).toMatch(/diagnostics\.baseline: unknown condition "nope"/);
    expect(result.code).toBe(2);
    expect(model.requests).toHaveLength(0);
    expect(existsSync(join(dir, 'runs', 'bad'))).toBe(false);
  });

  it.concurrent('hisrag run of a config whose diagnostics checker cannot run: exit 2 before the first answer', async () => {
    const config = demoConfigIn(
      dir,
      (c) => {
        c.benchmark.limit = 3;
        c.retrieval.k = [10];
        c.models = [{ name: 'openai', baseURL: model.url, model: 'm', label: 'm', retryBaseMs: 1, retryMaxMs: 5, timeoutMs: 5_000 }];
        c.diagnostics = { ...c.diagnostics, checker: { name: 'openai', model: 'checker', apiKeyEnv: UNSET, ...endpoint } };
      },
      'bad-checker.yaml',
      'demo-diagnostics.yaml',
    );
    const result = await runCli(['run', config, '--run-id', 'bad-checker', '--no-progress'], { env: { [UNSET]: '' } });
    expect(result.stderr).not.toContain('internal error');
    expect(result.stderr).toMatch(new RegExp(`diagnostics\\.checker\\b[^\\n]*${UNSET}[^\\n]*not set`));
    expect(result.code).toBe(2);
    expect(model.requests).toHaveLength(0);
    expect(claims.requests).toHaveLength(0);
    expect(existsSync(join(dir, 'runs', 'bad-checker'))).toBe(false);
  });
});
