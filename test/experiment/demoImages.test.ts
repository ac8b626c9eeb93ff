import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { imageTokensOf } from '../../src/generation/imageTokens.js';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { SummaryFileSchema } from '../../src/runFiles/summaryFile.js';
import { REPO_ROOT, runCli, type CliResult } from '../helpers/runCli.js';

const IMAGES = resolve(REPO_ROOT, 'corpora/sources/demo-longhisdoc/LongHisDoc_IMG');

/** experiments/demo-longhisdoc-images.yaml with every artefact and run written inside `dir`. */
function imagesDemoIn(dir: string): string {
  const config = parse(readFileSync(join(REPO_ROOT, 'experiments/demo-longhisdoc-images.yaml'), 'utf8'));
  config.output = join(dir, 'runs');
  config.prepare.clipModel.out = join(dir, 'clip');
  config.prepare.corpora[0].out = join(dir, 'corpus');
  const moved = new Map<string, string>();
  for (const index of config.prepare.indexes) {
    const out = join(dir, index.out.split('/').pop());
    moved.set(index.out, out);
    index.out = out;
    index.corpus = join(dir, 'corpus');
    if (index.embedder) index.embedder.model = join(dir, 'clip');
  }
  const retarget = (spec: { index?: string; retrievers?: unknown[] }) => {
    if (spec.index) spec.index = moved.get(spec.index) ?? spec.index;
    for (const child of (spec.retrievers ?? []) as { index?: string }[]) retarget(child);
  };
  for (const retriever of config.retrieval.retrievers) retarget(retriever);
  const file = join(dir, 'demo-images.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const SETTINGS = ['closed-book', 'ocr-input', 'image-input', 'image+ocr-input'];
const PAGE_RAG = ['ocr', 'image', 'fused'].flatMap((retriever) => ['image-rag', 'ocr-rag'].flatMap((s) => [1, 3, 5, 10].map((k) => `${retriever}/${s}@${k}`)));

describe('the page-image demo (experiments/demo-longhisdoc-images.yaml), end to end through the CLI', () => {
  let dir: string;
  let result: CliResult;
  let records: RunItemRecord[];
  const runDir = () => join(dir, 'runs', 'images');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-images-demo-'));
    result = await runCli(['run', imagesDemoIn(dir), '--run-id', 'images', '--no-progress']);
    records = readFileSync(join(runDir(), 'items.jsonl'), 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
  }, 240_000);

  it('prints every setting side by side with CIs, Δ against closed-book and against OCR input, and recall of the three page retrievers', () => {
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Δ vs closed-book \[95% CI\].*Δ vs ocr-input \[95% CI\]/);
    for (const row of [...SETTINGS, ...PAGE_RAG]) expect(result.stdout, row).toMatch(new RegExp(`^${row.replace(/[+]/g, '\\+')}\\s+\\d+\\.\\d\\d\\s+\\[`, 'm'));
    for (const retriever of ['ocr', 'image', 'fused']) {
      expect(result.stdout).toMatch(new RegExp(`^${retriever}/image-rag@10 .* \\d\\.\\d{3} `, 'm'));
    }
    // The stand-ins say what they are.
    expect(result.stdout).toContain('reads the OCR text of the page images it was shown');
    expect(result.stdout).toMatch(/stand-in for a CLIP-family page-image encoder/);
    expect(result.stdout).toContain('image input against OCR input');
  });

  it('shows the image conditions their pages by reference, in page order, and never copies an image into the run', () => {
    const imageInput = records.filter((r) => r.condition === 'image-input');
    expect(imageInput.length).toBeGreaterThan(0);
    const qa = JSON.parse(readFileSync(join(REPO_ROOT, 'corpora/sources/demo-longhisdoc/qa.json'), 'utf8')) as Record<string, { item_id: string; input_pages: string }[]>;
    const inputPages = new Map(Object.values(qa).flat().map((r) => [r.item_id, JSON.parse(r.input_pages) as number[]]));
    for (const record of imageInput.filter((r) => r.benchmark === 'longhisdoc')) {
      const images = record.prompt.flatMap((m) => m.images ?? []);
      expect(images.map((i) => i.page)).toEqual([...inputPages.get(record.itemId)!].sort((a, b) => a - b));
      expect(images.every((i) => i.imageDir === IMAGES && existsSync(join(i.imageDir, i.path)))).toBe(true);
    }
    const manifest = JSON.parse(readFileSync(join(runDir(), 'manifest.json'), 'utf8'));
    expect(manifest.imageDirs).toEqual([IMAGES]);
    expect(filesUnder(runDir()).filter((f) => /\.(jpe?g|png|webp)$/i.test(f))).toEqual([]);
    expect(filesUnder(join(dir, 'corpus')).filter((f) => /\.(jpe?g|png|webp)$/i.test(f))).toEqual([]);
    // Text conditions show no image.
    expect(records.filter((r) => r.condition === 'ocr-input' || r.condition.includes('ocr-rag')).every((r) => r.prompt.every((m) => !m.images))).toBe(true);
  });

  it('counts each image by the configured token formula in the answer\'s cost', () => {
    const config = parse(readFileSync(join(dir, 'demo-images.yaml'), 'utf8'));
    const settings = { maxPixels: 1_003_520, tokens: { formula: 'qwen-vl' as const, patch: 28, minPixels: 3136, maxPixels: 1_003_520 }, ...(config.models[0].images ?? {}) };
    for (const record of records.filter((r) => r.condition === 'image-input' || r.condition === 'image/image-rag@3')) {
      const images = record.prompt.flatMap((m) => m.images ?? []);
      const expected = images.reduce((n, image) => n + imageTokensOf(image, settings), 0);
      expect(record.cost?.imageTokens).toBe(expected);
      expect(record.cost?.images).toBe(images.length);
      expect(record.cost!.promptTokens).toBeGreaterThan(expected);
    }
  });

  it('breaks image input against OCR input down by evidence modality in summary.json and the report', () => {
    const summary = SummaryFileSchema.parse(JSON.parse(readFileSync(join(runDir(), 'summary.json'), 'utf8')));
    const pair = summary.byModality?.find((p) => p.condition === 'image-input' && p.against === 'ocr-input');
    expect(pair).toBeDefined();
    expect(Object.keys(pair!.byGroup.evidence_modal!).sort()).toEqual(['(none)', 'layout', 'text', 'visual']);
    const report = readFileSync(join(runDir(), 'report.html'), 'utf8');
    expect(report).toContain('Image input against OCR input, by evidence modality');
    expect(report).toContain('visual');
  });
});
