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
    const items = await load({ file: path, label: 'mini' });
    expect(items[0]).toMatchObject({
      id: '1',
      benchmark: 'mini',
      kind: 'reference',
      category: '地理',
      referenceAnswer: '长安',
      answer: '长安',
      goldChunkIds: ['wiki:1:0'],
      meta: { source: 'x' },
    });
    expect(items[1]).toMatchObject({ id: 'b', category: 'all', referenceAnswer: '赵匡胤' });
  });

  it('names the line and field of a record without an answer', async () => {
    const path = jsonl([{ id: 'a', question: 'q', answer: 'x' }, { id: 'b', question: 'q' }]);
    await expect(load({ file: path })).rejects.toThrow(`${path}: line 2: answer`);
  });

  it('filters by category and limit', async () => {
    const path = jsonl([1, 2, 3, 4].map((i) => ({ id: i, question: 'q', answer: 'a', category: i % 2 ? 'odd' : 'even' })));
    expect((await load({ file: path, categories: ['odd'], limit: 1 })).map((i) => i.id)).toEqual(['1']);
  });
});
