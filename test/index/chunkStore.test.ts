import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChunkStore } from '../../src/index/chunkStore.js';
import { DataFileError } from '../../src/errors.js';
import type { Chunk } from '../../src/runFiles/corpusFiles.js';
import { sampleChunks } from './testCorpus.js';

describe('ChunkStore', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const open = () => {
    dir = mkdtempSync(join(tmpdir(), 'hisrag-store-'));
    return ChunkStore.open(join(dir, 'chunks.sqlite'));
  };

  it('gives chunks consecutive labels across batches and reads them back unchanged after reopening', () => {
    const store = open();
    const chunks = sampleChunks();
    store.append(chunks.slice(0, 5));
    store.append(chunks.slice(5));
    store.finish();
    store.close();
    const reopened = ChunkStore.open(join(dir, 'chunks.sqlite'), { readonly: true });
    expect(reopened.count()).toBe(chunks.length);
    expect(reopened.byLabel(6)).toEqual({ ...chunks[6], label: 6 });
    expect(reopened.byId(chunks[2]!.id)?.label).toBe(2);
    expect([...reopened.chunks()].map((c) => c.id)).toEqual(chunks.map((c) => c.id));
    reopened.close();
  });

  it('reads a hit list back in its order, repeats included, whatever the text holds, older TEXT rows too', () => {
    const store = open();
    const odd: Chunk[] = [
      { id: 'odd:"q"\\0', docId: 'd\n1', title: 'tab\there 𝌆', text: '', meta: { spans: [{ doc: 'd', start: 0, end: 0 }], note: '\u0000\u2028"' } },
      { id: 'odd:1', docId: 'd1', title: '', text: 'ASCII only, then 😀 and 漢字\r\n', meta: {} },
    ];
    store.append([...sampleChunks().slice(0, 3), ...odd]);
    // A store written before format 2 keeps texts as TEXT, not UTF-16LE BLOBs.
    store.db.prepare('INSERT INTO chunks (label, id, doc_id, title, text, meta) VALUES (5, ?, ?, ?, ?, ?)').run('old:5', 'd2', '舊', '舊格式的正文', '{"page":2}');
    const expected = [...sampleChunks().slice(0, 3), ...odd, { id: 'old:5', docId: 'd2', title: '舊', text: '舊格式的正文', meta: { page: 2 } }].map((chunk, label) => ({ ...chunk, label }));
    const labels = [4, 0, 5, 3, 4, 2, 1, 0];
    expect(store.byLabels(labels)).toEqual(labels.map((label) => expected[label]));
    expect(store.byLabels([])).toEqual([]);
    expect(() => store.byLabels([1, 6])).toThrow(/no chunk with label 6/);
    store.close();
  });

  it('stores vectors with their chunks as float32', () => {
    const store = open();
    const vectors = [new Float32Array([1, 0]), new Float32Array([0.5, 0.25])];
    store.append(sampleChunks().slice(0, 2), vectors);
    expect(store.countVectors()).toBe(2);
    expect([...store.vector(1)!]).toEqual([0.5, 0.25]);
    expect([...store.vectors()].map(([label]) => label)).toEqual([0, 1]);
    store.close();
  });

  it("lists one document's labels in corpus order", () => {
    const store = open();
    store.append(sampleChunks());
    expect(store.labelsOfDoc('book-b')).toEqual([4, 5, 6]);
    expect(store.labelsOfDoc('missing')).toEqual([]);
    store.close();
  });

  it('counts chunks whose meta.doc_id names a document among its chunks (LongHisDoc: one document per page)', () => {
    const store = open();
    const page = (n: number) => ({ id: `lhd:bk-p${n}:0`, docId: `bk-p${n}`, title: '書', text: `第${n}頁`, meta: { doc_id: 'bk', page: n } });
    store.append([page(1), page(2), { id: 'other:0', docId: 'other', title: '', text: '', meta: {} }, page(3)]);
    expect(store.labelsOfDoc('bk')).toEqual([0, 1, 3]);
    expect(store.labelsOfDoc('bk-p2')).toEqual([1]);
    store.close();
  });

  it('rejects a duplicate chunk id naming it, and keeps nothing of the failed batch', () => {
    const store = open();
    const chunks = sampleChunks();
    store.append(chunks.slice(0, 2));
    expect(() => store.append([chunks[2]!, chunks[0]!], undefined, (i) => `chunks.jsonl: chunk ${3 + i}`)).toThrow(DataFileError);
    expect(() => store.append([chunks[0]!])).toThrow(/duplicate chunk id "test:book-a:0"/);
    expect(store.count()).toBe(2);
    store.close();
  });
});
