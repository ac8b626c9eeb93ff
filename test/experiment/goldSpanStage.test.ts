import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareArtefacts } from '../../src/app/prepare.js';
import type { BenchmarkItem } from '../../src/benchmarks/types.js';
import type { ExperimentConfig } from '../../src/config/experiment.js';
import { placeGoldForRetrievers } from '../../src/experiment/goldSpanStage.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hisrag-gold-stage-'));
  // An Extension B character before the evidence: its span is in code points.
  await writeFile(join(dir, 'source.jsonl'), '{"id":"a","title":"科舉","text":"𠀀科舉是選拔官吏的制度。\\n始於隋朝，廢於清末。"}\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const config = () =>
  ({
    prepare: {
      corpora: [{ name: 'mini', builder: { name: 'json', input: join(dir, 'source.jsonl') }, out: join(dir, 'corpus'), chunking: { maxSize: 12, unit: 'chars' } }],
      indexes: [{ out: join(dir, 'index'), corpus: join(dir, 'corpus'), retriever: 'bm25' }],
    },
  }) as unknown as ExperimentConfig;
const prepare = async (dryRun = false) => {
  const lines: string[] = [];
  await prepareArtefacts(config(), { log: (line) => lines.push(line), progress: false, dryRun });
  return lines;
};
const item: BenchmarkItem = { id: 'q', benchmark: 'b', kind: 'reference', question: 'q', category: 'c', meta: {}, goldEvidence: ['始於隋朝'] };
const retrievers = () => [{ label: 'bm25', spec: { name: 'bm25', index: join(dir, 'index') } }];
const editManifest = async (edit: (manifest: any) => void) => {
  const file = join(dir, 'corpus', 'manifest.json');
  const manifest = JSON.parse(await readFile(file, 'utf8'));
  edit(manifest);
  await writeFile(file, JSON.stringify(manifest));
};

describe('gold spans at a run\'s start: placed in code points, and none from chunk spans of another format', () => {
  it('places the evidence in code points in a corpus of today\'s span format', async () => {
    await prepare();
    const stage = await placeGoldForRetrievers([item], retrievers());
    expect(stage.lines).toEqual([]);
    // 𠀀科舉是選拔官吏的制度。\n = 13 code points (14 UTF-16 units) before 始.
    expect(stage.spansFor(item, 'bm25')).toEqual([{ doc: 'a', start: 13, end: 17 }]);
  });

  it('gives no span metrics for a corpus built with the earlier span format, and prepare rebuilds it saying why', async () => {
    await prepare();
    await editManifest((manifest) => delete manifest.inputs.settings.spanFormat);
    const stage = await placeGoldForRetrievers([item], retrievers());
    expect(stage.spansFor(item, 'bm25')).toBeUndefined();
    expect(stage.lines).toEqual([expect.stringMatching(/^warning: bm25: corpus mini has chunk spans of format 1 \(this hisrag reads 2: code points, the separators between chunks included\): no span metrics for it; rebuild/)]);
    expect((await prepare(true)).join('\n')).toContain('spanFormat (unset) → 2');
  });

  it('gives no span metrics when the index was built from another build of its corpus', async () => {
    await prepare();
    await editManifest((manifest) => (manifest.contentHash = `${manifest.contentHash}0`));
    const stage = await placeGoldForRetrievers([item], retrievers());
    expect(stage.spansFor(item, 'bm25')).toBeUndefined();
    expect(stage.lines).toEqual([expect.stringContaining('its index was built from another build of corpus mini than the one there now')]);
  });
});
