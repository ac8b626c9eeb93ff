import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { RunItemRecordSchema, type RunItemRecord } from '../../src/runFiles/itemRecord.js';
import { runCli, type CliResult } from '../helpers/runCli.js';
import { mulberry32 as random } from '../../src/models/fixture/seededRandom.js';
import { expectScoredFromRecord, storedSpanMetrics } from '../helpers/recordSpans.js';
import { codePointLength, sliceCodePoints } from '../../src/text/codePoints.js';

// issue 43's second and issue 50's third Done-when bullets: on a corpus and a benchmark with gold
// spans generated here (so never seen when the code was written), for every chunking of a sweep, the
// records keep what their span metrics were computed from; precision and IoU are Chroma's (each
// retrieved range counted, overlapping chunks' text as often as retrieved) computed from the records'
// spans; gold given in code points after CJK Extension B characters is recalled whole by a chunk that
// holds it. That spanMetrics is Chroma's definition is checked against the reference's values in
// test/scoring/chromaSpanGolden.test.ts.

// Extension B characters (two UTF-16 units, one code point) among the basic plane's.
const HAN = [...'甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥春夏秋冬東西南北金木水火土山川河海風雨雷電日月星辰', '𠀀', '𠀁', '𠂇', '𠃌'];
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
      // Offsets in code points, as a Python script writes gold spans.
      const length = codePointLength(text);
      const start = pick(length - 12);
      const end = Math.min(length, start + 4 + pick(40));
      let evidence = sliceCodePoints(text, start, end);
      if (kind === 'fuzzy') evidence = evidence.replace(/。/g, '. ').replace(/，/g, ', ') + ' ';
      if (kind === 'absent') evidence = '此段文字不在任何文檔之中';
      questions.push({ id: `q${i}`, kind, evidence, doc, start, end });
      const gold = kind === 'span' ? { gold_spans: [{ doc, start, end }] } : { gold_evidence: [evidence] };
      // The question shares characters with its evidence, so BM25 finds it now and then, not always.
      return JSON.stringify({ id: `q${i}`, question: `${sliceCodePoints(text, start, start + 6)}何也？`, answer: sliceCodePoints(text, start, start + 4), ...gold });
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
      const text = sliceCodePoints(documents.get(span.doc)!, span.start, span.end);
      if (q.kind === 'span') expect(span).toEqual({ doc: q.doc, start: q.start, end: q.end });
      else if (q.kind === 'exact') expect(text).toBe(q.evidence);
      else expect(noSpaceOrPunctuation(text)).toBe(noSpaceOrPunctuation(q.evidence));
    }
    const absent = questions.filter((q) => q.kind === 'absent');
    expect(result.stdout).toContain(`warning: gold evidence of ${absent.length} items not found in gen·maxSize=16·overlap=0's documents`);
    for (const q of absent) expect(result.stdout).toContain(`qa.jsonl: line ${Number(q.id.slice(1)) + 1} "${q.evidence}"`);
  });

  it('records where each retrieved passage is, and scores each record as Chroma does from the spans it keeps', () => {
    let covered = 0;
    let heldWhole = 0;
    let overlapping = 0;
    for (const record of records) {
      for (const passage of record.retrieved) {
        const text = passage.spans!.map((span) => sliceCodePoints(documents.get(span.doc)!, span.start, span.end)).join('');
        expect(text.replace(/\s+/g, ''), passage.id).toBe(passage.text.replace(/\s+/g, ''));
      }
      // What the record keeps is what was scored, with Chroma's denominators.
      expectScoredFromRecord(record);
      if (!record.goldSpans) continue;
      const stored = storedSpanMetrics(record);
      // A gold span inside one retrieved passage's range is recalled whole (code points on both sides).
      const [span] = record.goldSpans;
      if (record.goldSpans.length === 1 && record.retrieved.some((p) => p.spans!.some((s) => s.doc === span!.doc && s.start <= span!.start && span!.end <= s.end))) {
        expect(stored.charRecall, record.key).toBe(1);
        heldWhole++;
      }
      if (record.retrieved.some((p, i) => record.retrieved.slice(i + 1).some((q) => q.spans!.some((s) => p.spans!.some((t) => s.doc === t.doc && s.start < t.end && t.start < s.end))))) overlapping++;
      if (stored.covered) covered++;
    }
    // The generated questions are hard enough that some gold is covered and some is not; overlapping chunks are retrieved together.
    expect(covered).toBeGreaterThan(0);
    expect(covered).toBeLessThan(records.filter((r) => r.goldSpans).length);
    expect(heldWhole).toBeGreaterThan(0);
    expect(overlapping).toBeGreaterThan(0);
    // Extension B characters stand before some gold: UTF-16 offsets would differ from the code points given.
    expect(questions.some((q) => q.kind === 'span' && /[\ud800-\udfff]/.test(sliceCodePoints(documents.get(q.doc)!, 0, q.start)))).toBe(true);
  });
});
