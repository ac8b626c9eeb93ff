import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { recomputeSpanMetrics, storedSpanMetrics } from '../helpers/spanRecompute.js';
import { mulberry32 as random } from '../../src/models/fixture/seededRandom.js';

// issue 43's second Done-when bullet: on a corpus and a benchmark with gold spans generated here
// (so never seen when the code was written), the character recall, precision, IoU and the smallest
// covering k recompute exactly from the records, for every chunking of a sweep.

/** A seeded generator (mulberry32). */

const HAN = '甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥春夏秋冬東西南北金木水火土山川河海風雨雷電日月星辰';
const noSpaceOrPunctuation = (text: string) => text.normalize('NFKC').replace(/[\s\p{P}\p{S}]/gu, '');

describe('span metrics on a generated corpus and benchmark with gold spans', () => {
  let dir: string;
  let result: CliResult;
  let records: RunItemRecord[];
  const documents = new Map<string, string>();
  const questions: { id: string; kind: 'span' | 'exact' | 'fuzzy' | 'absent'; evidence: string; doc: string; start: number; end: number }[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-span-unseen-'));
    const next = random(20261204);
    const pick = (n: number) => Math.floor(next() * n);
    const sentence = () => Array.from({ length: 3 + pick(14) }, () => HAN[pick(HAN.length)]).join('') + ['。', '，', '；', '！'][pick(4)];
    const docs = Array.from({ length: 12 }, (_, d) => {
      const paragraphs = Array.from({ length: 1 + pick(4) }, () => Array.from({ length: 2 + pick(6) }, sentence).join(''));
      const text = paragraphs.join('\n\n');
      documents.set(`g${d}`, text);
      return { id: `g${d}`, title: `文${d}`, text };
    });
    writeFileSync(join(dir, 'docs.json'), JSON.stringify(docs));
    const kinds = ['span', 'exact', 'fuzzy', 'span', 'exact', 'absent'] as const;
    const lines = Array.from({ length: 30 }, (_, i) => {
      const kind = kinds[i % kinds.length]!;
      const doc = `g${pick(docs.length)}`;
      const text = documents.get(doc)!;
      const start = pick(text.length - 12);
      const end = Math.min(text.length, start + 4 + pick(40));
      let evidence = text.slice(start, end);
      if (kind === 'fuzzy') evidence = evidence.replace(/。/g, '. ').replace(/，/g, ', ') + ' ';
      if (kind === 'absent') evidence = '此段文字不在任何文檔之中';
      questions.push({ id: `q${i}`, kind, evidence, doc, start, end });
      const gold = kind === 'span' ? { gold_spans: [{ doc, start, end }] } : { gold_evidence: [evidence] };
      // The question shares characters with its evidence, so BM25 finds it now and then, not always.
      return JSON.stringify({ id: `q${i}`, question: `${text.slice(start, start + 6)}何也？`, answer: text.slice(start, start + 4), ...gold });
    });
    writeFileSync(join(dir, 'qa.jsonl'), lines.join('\n') + '\n');
    const config = {
      name: 'span-unseen',
      output: join(dir, 'runs'),
      prepare: {
        corpora: [{ name: 'gen', builder: { name: 'json', input: join(dir, 'docs.json') }, out: join(dir, 'gen'), chunking: { maxSize: [16, 40, 100], overlap: [0, 8] } }],
        indexes: [{ out: join(dir, 'gen-bm25'), corpus: join(dir, 'gen'), retriever: 'bm25' }],
      },
      benchmark: { name: 'jsonl', file: join(dir, 'qa.jsonl') },
      retrieval: { retriever: { label: 'bm25', name: 'bm25', index: join(dir, 'gen-bm25') }, k: [1, 4, 12] },
      strategies: ['rag'],
      models: [{ name: 'extractive', minOverlap: 1 }],
      scoring: { bootstrapResamples: 200 },
    };
    writeFileSync(join(dir, 'span.yaml'), stringify(config));
    result = await runCli(['run', join(dir, 'span.yaml'), '--run-id', 'unseen', '--no-progress']);
    records = readFileSync(join(dir, 'runs', 'unseen', 'items.jsonl'), 'utf8').trim().split('\n').map((l) => RunItemRecordSchema.parse(JSON.parse(l)));
  }, 240_000);

  it('runs every chunking of the sweep at every depth', () => {
    expect(result.code, result.stderr).toBe(0);
    expect(new Set(records.map((r) => r.retriever)).size).toBe(6);
    expect(records).toHaveLength(30 * 6 * 3);
  });

  it('places the gold: spans as given, evidence text exactly or by the fuzzy rule, and warns of what it cannot place', () => {
    for (const q of questions) {
      const placed = records.filter((r) => r.itemId === q.id).map((r) => JSON.stringify(r.goldSpans ?? null));
      expect(new Set(placed).size, q.id).toBe(1);
      const spans = records.find((r) => r.itemId === q.id)!.goldSpans;
      if (q.kind === 'absent') {
        expect(spans).toBeUndefined();
        continue;
      }
      expect(spans).toHaveLength(1);
      const span = spans![0]!;
      const text = documents.get(span.doc)!.slice(span.start, span.end);
      if (q.kind === 'span') expect(span).toEqual({ doc: q.doc, start: q.start, end: q.end });
      else if (q.kind === 'exact') expect(text).toBe(q.evidence);
      else expect(noSpaceOrPunctuation(text)).toBe(noSpaceOrPunctuation(q.evidence));
    }
    const absent = questions.filter((q) => q.kind === 'absent');
    expect(result.stdout).toContain(`warning: gold evidence of ${absent.length} items not found in gen·maxSize=16·overlap=0's documents`);
    for (const q of absent) expect(result.stdout).toContain(`qa.jsonl: line ${Number(q.id.slice(1)) + 1} "${q.evidence}"`);
  });

  it('records where each retrieved passage is, and the span metrics recompute exactly from the records', () => {
    let covered = 0;
    for (const record of records) {
      for (const passage of record.retrieved) {
        const text = passage.spans!.map((span) => documents.get(span.doc)!.slice(span.start, span.end)).join('');
        expect(text.replace(/\s+/g, ''), passage.id).toBe(passage.text.replace(/\s+/g, ''));
      }
      const recomputed = recomputeSpanMetrics(record);
      expect(storedSpanMetrics(record), record.key).toEqual(recomputed ?? {});
      if (recomputed?.covered) covered++;
    }
    // The generated questions are hard enough that some gold is covered and some is not.
    expect(covered).toBeGreaterThan(0);
    expect(covered).toBeLessThan(records.filter((r) => r.goldSpans).length);
  });
});
