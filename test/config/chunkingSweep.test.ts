import { describe, expect, it } from 'vitest';
import { chunkingGrid, expandChunkingSweeps } from '../../src/config/chunkingSweep.js';
import { experimentJsonSchema } from '../../src/config/jsonSchema.js';
import { validateExperimentConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';

const sweep = () => ({
  name: 'sweep',
  prepare: {
    corpora: [
      { name: 'wiki', builder: { name: 'wikipedia-dump', input: 'dump.xml' }, out: 'corpora/wiki', chunking: { maxSize: [128, 256, 512], unit: 'chars', overlap: [0, 32] } },
      { name: 'other', builder: { name: 'wikipedia-dump', input: 'dump.xml' }, chunking: { maxSize: 300 } },
    ],
    indexes: [
      { out: 'indexes/wiki-dense', corpus: './corpora/wiki/', retriever: 'exact', embedder: { name: 'transformers', model: 'models/m' } },
      { out: 'indexes/wiki-bm25', corpus: 'corpora/wiki', retriever: 'bm25' },
      { out: 'indexes/other-bm25', corpus: 'corpora/other', retriever: 'bm25' },
    ],
  },
  benchmark: { name: 'prohist', file: 'b.json' },
  retrieval: {
    retrievers: [
      { label: 'dense', name: 'exact', index: 'indexes/wiki-dense' },
      { name: 'hybrid', retrievers: [{ name: 'exact', index: 'indexes/wiki-dense' }, { name: 'bm25', index: 'indexes/wiki-bm25' }] },
      { label: 'plain', name: 'bm25', index: 'indexes/other-bm25' },
    ],
    k: [1, 5],
  },
  strategies: ['closed-book', 'rag'],
  models: [{ name: 'extractive' }],
});

describe('chunking sweeps', () => {
  it('is the cartesian product of the lists, the first list outermost, repeated values once', () => {
    expect(chunkingGrid({ maxSize: [1, 2], overlap: [0, 5, 5], unit: 'chars' })).toEqual([
      { maxSize: 1, overlap: 0 }, { maxSize: 1, overlap: 5 }, { maxSize: 2, overlap: 0 }, { maxSize: 2, overlap: 5 },
    ]);
    expect(chunkingGrid({ maxSize: 3 })).toEqual([]);
    expect(chunkingGrid(undefined)).toEqual([]);
  });

  it('expands a corpus into one corpus, index and retriever label per grid point, named after its settings', () => {
    const out = expandChunkingSweeps(sweep()) as any;
    const names = out.prepare.corpora.map((c: any) => c.name);
    expect(names).toEqual([
      'wiki·maxSize=128·overlap=0', 'wiki·maxSize=128·overlap=32', 'wiki·maxSize=256·overlap=0', 'wiki·maxSize=256·overlap=32', 'wiki·maxSize=512·overlap=0', 'wiki·maxSize=512·overlap=32', 'other',
    ]);
    expect(out.prepare.corpora[3]).toMatchObject({ out: 'corpora/wiki·maxSize=256·overlap=32', chunking: { maxSize: 256, overlap: 32, unit: 'chars' } });
    expect(out.prepare.indexes).toHaveLength(13);
    const dense = out.prepare.indexes.filter((i: any) => i.retriever === 'exact');
    expect(dense.map((i: any) => i.corpus)).toEqual(out.prepare.corpora.slice(0, 6).map((c: any) => c.out));
    expect(dense[2].out).toBe('indexes/wiki-dense·maxSize=256·overlap=0');
    // One embedding cache (keyed by chunk text) shared by the sweep's indexes: a text two chunkings share is embedded once.
    expect(new Set(dense.map((i: any) => i.embedder.cacheFile))).toEqual(new Set(['indexes/wiki-dense.embeddings.sqlite']));
    expect(out.prepare.indexes.at(-1)).toEqual({ out: 'indexes/other-bm25', corpus: 'corpora/other', retriever: 'bm25' });
    const labels = out.retrieval.retrievers.map((r: any) => r.label ?? r.name);
    expect(labels).toEqual([
      ...['dense', 'hybrid'].flatMap((l) => ['128·overlap=0', '128·overlap=32', '256·overlap=0', '256·overlap=32', '512·overlap=0', '512·overlap=32'].map((p) => `${l}·maxSize=${p}`)),
      'plain',
    ]);
    // A fused retriever's children follow the same grid point.
    expect(out.retrieval.retrievers[7].retrievers.map((r: any) => r.index)).toEqual(['indexes/wiki-dense·maxSize=128·overlap=32', 'indexes/wiki-bm25·maxSize=128·overlap=32']);
  });

  it('sweeps the chunking method like any other setting', () => {
    const config = sweep();
    config.prepare.corpora[0]!.chunking = { maxSize: [64, 128], method: ['sentences', 'fixed'] } as any;
    const checked = validateExperimentConfig(config, 'exp.yaml');
    expect(checked.prepare!.corpora!.slice(0, 4).map((c) => [c.name, c.chunking.method])).toEqual([
      ['wiki·maxSize=64·method=sentences', 'sentences'], ['wiki·maxSize=64·method=fixed', 'fixed'], ['wiki·maxSize=128·method=sentences', 'sentences'], ['wiki·maxSize=128·method=fixed', 'fixed'],
    ]);
  });

  it('leaves a config without lists as it is, and an expanded one expands to itself', () => {
    const plain = sweep();
    plain.prepare.corpora[0]!.chunking = { maxSize: 128 as any, unit: 'chars', overlap: 0 as any };
    expect(expandChunkingSweeps(plain)).toBe(plain);
    const once = expandChunkingSweeps(sweep());
    expect(expandChunkingSweeps(once)).toEqual(once);
  });

  it('is read by the experiment schema: the checked config (and the config a run stores) is the grid', () => {
    const config = validateExperimentConfig(sweep(), 'exp.yaml');
    expect(config.prepare!.corpora!.map((c) => c.chunking.maxSize)).toEqual([128, 128, 256, 256, 512, 512, 300]);
    expect(config.retrieval!.retrievers.map((r) => r.label ?? r.name)).toContain('dense·maxSize=512·overlap=32');
    expect(validateExperimentConfig(JSON.parse(JSON.stringify(config)), 'config.json').prepare!.corpora).toHaveLength(7);
  });

  it('refuses a bad value of a list where it stands, and a retriever of two sweeps', () => {
    const bad = sweep();
    (bad.prepare.corpora[0]!.chunking as any).maxSize = [128, -1];
    const message = (() => {
      try {
        validateExperimentConfig(bad, 'exp.yaml');
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toBe('exp.yaml: invalid experiment config:\nprepare.corpora[0].chunking.maxSize[1]: Too small: expected number to be >0\nprepare.corpora[0].chunking.overlap[0]: overlap must be smaller than maxSize\nprepare.corpora[0].chunking.overlap[1]: overlap must be smaller than maxSize');
    const badIndex = sweep();
    (badIndex.prepare.indexes[2] as any).retriever = 'nope';
    (badIndex.retrieval.retrievers[0] as any).label = 'a b';
    expect(() => validateExperimentConfig(badIndex, 'exp.yaml')).toThrow(/prepare\.indexes\[2\]\.retriever[^]*retrieval\.retrievers\[0\]\.label/);
    const two = sweep();
    (two.prepare.corpora[1]!.chunking as any).maxSize = [100, 200];
    two.retrieval.retrievers[1] = { name: 'hybrid', retrievers: [{ name: 'exact', index: 'indexes/wiki-dense' }, { name: 'bm25', index: 'indexes/other-bm25' }] } as any;
    expect(() => expandChunkingSweeps(two)).toThrow(ConfigError);
    expect(() => expandChunkingSweeps(two)).toThrow('retrieval.retrievers[1]: reads indexes of two swept corpora (wiki, other)');
    expect(() => validateExperimentConfig(two, 'exp.yaml')).toThrow('exp.yaml: invalid experiment config:\nretrieval.retrievers[1]: reads indexes of two swept corpora');
  });

  it('names a problem where the file wrote it: a sweep list\'s entry, or a field of the swept corpus, its index or its retriever', () => {
    const messageOf = (edit: (config: any) => void) => {
      const config = sweep() as any;
      edit(config);
      try {
        validateExperimentConfig(config, 'exp.yaml');
      } catch (error) {
        return (error as Error).message.split('\n').slice(1);
      }
      return [];
    };
    // Inside a list: the entry (overlap 0 is no smaller than -5 at that point: reported at overlap's one value).
    expect(messageOf((c) => (c.prepare.corpora[0].chunking = { maxSize: [128, -5], overlap: 0 }))).toEqual([
      'prepare.corpora[0].chunking.maxSize[1]: Too small: expected number to be >0',
      'prepare.corpora[0].chunking.overlap: overlap must be smaller than maxSize',
    ]);
    expect(messageOf((c) => (c.prepare.corpora[1].chunking = { maxSize: [100, 200], method: ['sentences', 'words'] }))).toEqual([
      'prepare.corpora[1].chunking.method[1]: Invalid option: expected one of "sentences"|"fixed"',
    ]);
    // Outside a list, in the second corpus of a config whose first corpus is swept into six, and the swept corpus's index and retriever.
    expect(messageOf((c) => {
      c.prepare.corpora[1].builder.input = 5;
      c.prepare.indexes[1].retriever = 'nope';
      c.retrieval.retrievers[1].label = 'a b';
    })).toEqual([
      'prepare.corpora[1].builder.input: Invalid input: expected string, received number',
      expect.stringMatching(/^prepare\.indexes\[1\]\.retriever: /),
      expect.stringMatching(/^retrieval\.retrievers\[1\]\.label: /),
    ]);
  });

  it('the JSON Schema accepts a list for every chunking setting', () => {
    const chunking = (experimentJsonSchema() as any).properties.prepare.properties.corpora.items.properties.chunking;
    expect(chunking.properties.maxSize.anyOf[1]).toMatchObject({ type: 'array', items: { type: 'integer' }, minItems: 1 });
    expect(chunking.properties.overlap.anyOf[0]).toMatchObject({ type: 'integer', minimum: 0 });
  });
});
