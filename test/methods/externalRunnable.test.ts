import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { readRunRecords } from '../../src/runFiles/runDir.js';
import { runExperiment } from '../../src/app/runExperiment.js';
import { externalConfig } from './externalFixtures.js';

const MODULE = relative(process.cwd(), fileURLToPath(new URL('./externalChains.ts', import.meta.url)));

async function run(strategy: Record<string, unknown>, runId: string) {
  const dir = mkdtempSync(join(tmpdir(), `hisrag-runnable-${runId}-`));
  const config = await loadExperimentConfig(externalConfig(dir, [{ name: 'langchain-runnable', label: 'chain', module: MODULE, ...strategy }]));
  const result = await runExperiment({ config, runId });
  return { result, records: (await readRunRecords(result.runDir)).filter((r) => r.condition === 'chain') };
}

describe('the langchain-runnable method: a LangChain.js Runnable from a module', () => {
  it('reads answer and Documents from the output when the mapping names them; pages match gold', async () => {
    const { result, records } = await run({ export: 'withContexts', response: { answer: 'answer', contexts: 'context' } }, 'contexts');
    expect(records).toHaveLength(20);
    const record = records.find((r) => r.itemId === '90002_1')!;
    expect(record.response!.text).toBe('答：汉武帝在');
    expect(record.retrieved).toMatchObject([{ id: '90002-p2', page: 2, text: '第2页的文字', rank: 1 }]);
    // 90002_1's evidence is page 2.
    expect(record.retrievalMetrics!.recall).toBe(1);
    expect(result.summary.cells.find((c) => c.condition === 'chain')!.retrieval!.recall).toBeGreaterThan(0);
  });

  it('takes a string output as the answer and its models’ reported usage as the cost; without retrievers, no retrieval figures', async () => {
    const { result, records } = await run({ export: 'withUsage' }, 'usage');
    expect(records[0]!.response!.text).toMatch(/^回声：/);
    expect(records[0]!.cost).toMatchObject({ generationCalls: 1, promptTokens: 11, completionTokens: 3 });
    expect(records[0]!.cost!.estimatedTokens).toBeUndefined();
    expect(records[0]!.retrievalMetrics).toBeUndefined();
    expect(result.summary.cells.find((c) => c.condition === 'chain')!.retrieval).toBeNull();
  });

  it('retries an error the chain throws like a model endpoint’s (a 429), and every item is answered', async () => {
    const { records } = await run({ export: 'flaky', retries: 2, retryBaseMs: 1, retryMaxMs: 5, concurrency: 1 }, 'flaky');
    expect(records.every((r) => r.score.status === 'scored')).toBe(true);
    expect(records.some((r) => Number(r.trace[0]!.detail!.attempts) === 2)).toBe(true);
  });

  it('builds the Runnable with an exported function of the config’s options', async () => {
    const { records } = await run({ export: 'createFixed', options: { reply: '千字文' } }, 'factory');
    expect(records.find((r) => r.itemId === '90001_1')!.score.score).toBe(100);
  });

  it('refuses an export that is not a Runnable, naming it', async () => {
    await expect(run({ export: 'notARunnable' }, 'not')).rejects.toThrow(/export "notARunnable" is not a LangChain Runnable/);
  });
});
