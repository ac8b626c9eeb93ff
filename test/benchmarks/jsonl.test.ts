import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchmarks } from '../../src/benchmarks/registry.js';

function jsonl(records: unknown[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'hisrag-jsonl-')), 'qa.jsonl');
  writeFileSync(path, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return path;
}

async function load(spec: Record<string, unknown>) {
  return (await benchmarks.create({ name: 'jsonl', ...spec } as { name: string }, undefined)).load();
}

describe('jsonl loader', () => {
  it('reads free-text QA with gold chunk ids as reference items', async () => {
    const path = jsonl([
      { id: 1, question: '唐朝都城？', answer: '长安', category: '地理', gold_chunk_ids: ['wiki:1:0'], source: 'x' },
      { id: 'b', question: '宋朝开国皇帝？', reference_answer: '赵匡胤' },
    ]);
    const items = await load({ file: path, label: 'mini', metadata: ['source'] });
    expect(items[0]).toMatchObject({
      id: '1',
      benchmark: 'mini',
      kind: 'reference',
      category: '地理',
      referenceAnswer: '长安',
      answer: '长安',
      goldChunkIds: ['wiki:1:0'],
      meta: { source: 'x' },
      groups: { source: 'x' },
    });
    expect(items[1]).toMatchObject({ id: 'b', category: 'all', referenceAnswer: '赵匡胤' });
  });

  it('reads gold evidence as spans and as text, each checked, errors naming line and field', async () => {
    const path = jsonl([
      { id: 's', question: 'q', answer: 'x', gold_spans: [{ doc: 'wiki-1', start: 3, end: 9 }] },
      { id: 't', question: 'q', answer: 'x', gold_evidence: ['会试在京师举行'] },
    ]);
    const items = await load({ file: path });
    expect(items[0]!.goldSpans).toEqual([{ doc: 'wiki-1', start: 3, end: 9 }]);
    expect(items[1]!.goldEvidence).toEqual(['会试在京师举行']);
    expect(items[1]!.meta).toEqual({});
    const backwards = jsonl([{ id: 'a', question: 'q', answer: 'x', gold_spans: [{ doc: 'd', start: 9, end: 3 }] }]);
    await expect(load({ file: backwards })).rejects.toThrow(`${backwards}: line 1: gold_spans[0].end: expected end > start`);
    const noDoc = jsonl([{ id: 'a', question: 'q', answer: 'x' }, { id: 'b', question: 'q', answer: 'x', gold_spans: [{ start: 0, end: 3 }] }]);
    await expect(load({ file: noDoc })).rejects.toThrow(`${noDoc}: line 2: gold_spans[0].doc`);
    const stray = jsonl([{ id: 'a', question: 'q', answer: 'x', gold_spans: [{ doc: 'd', start: 0, end: 3, page: 2 }] }]);
    await expect(load({ file: stray })).rejects.toThrow(`${stray}: line 1: gold_spans[0]`);
    const empty = jsonl([{ id: 'a', question: 'q', answer: 'x', gold_evidence: [''] }]);
    await expect(load({ file: empty })).rejects.toThrow(`${empty}: line 1: gold_evidence[0]`);
  });

  it('names the line and field of a record without an answer', async () => {
    const path = jsonl([{ id: 'a', question: 'q', answer: 'x' }, { id: 'b', question: 'q' }]);
    await expect(load({ file: path })).rejects.toThrow(`${path}: line 2: answer`);
  });

  it('refuses a misspelt field with file, line, field and the field it was probably meant to be', async () => {
    const path = jsonl([{ id: 'a', question: 'q', answer: 'x', gold_chunk_ids: ['c:1:0'] }, { id: 'b', question: 'q', answer: 'y', gold_chunk_id: ['c:2:0'] }]);
    await expect(load({ file: path })).rejects.toThrow(`${path}: line 2: gold_chunk_id: unknown field of a jsonl benchmark record (did you mean "gold_chunk_ids"?)`);
  });

  it('keeps the fields of a record\'s metadata object, as meta and groups', async () => {
    const path = jsonl([{ id: 'a', question: 'q', answer: 'x', metadata: { era: '宋', pages: [1, 2] } }]);
    const [item] = await load({ file: path });
    expect(item).toMatchObject({ meta: { era: '宋', pages: [1, 2] }, groups: { era: '宋' } });
  });

  it('names the file and both lines of a duplicate id', async () => {
    const path = jsonl([{ id: 'a', question: 'q', answer: 'x' }, { id: 'b', question: 'q', answer: 'x' }, { id: 'a', question: 'q2', answer: 'y' }]);
    await expect(load({ file: path })).rejects.toThrow(`${path}: line 3: id "a" appears twice (first at line 1)`);
  });

  it('filters by category and limit', async () => {
    const path = jsonl([1, 2, 3, 4].map((i) => ({ id: i, question: 'q', answer: 'a', category: i % 2 ? 'odd' : 'even' })));
    expect((await load({ file: path, categories: ['odd'], limit: 1 })).map((i) => i.id)).toEqual(['1']);
  });
});
