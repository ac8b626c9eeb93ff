import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A generated corpus and benchmark for depth studies, offline and deterministic: 12 documents of
 * officials' careers (sentences of varied length), built twice as two corpora with different chunk
 * sizes (`mini-s`: 40 characters, `mini-l`: 160), a BM25 index over each, and 10 questions whose
 * answers are in the documents. The grid: closed-book, rag at k ∈ {2, 8, 30} and at context budgets
 * of 150, 300 and 600 tokens, over both retrievers (`small`, `large`), answered by the extractive
 * stand-in. Returns the config file's path.
 */
export function writeTokenDepthStudy(dir: string, options: { name?: string; k?: number[]; contextTokens?: number[] } = {}): string {
  const offices = ['知縣', '知府', '御史', '侍郎', '尚書', '學士', '主事', '通判'];
  const places = ['杭州', '蘇州', '江寧', '福州', '成都', '西安', '濟南', '廣州'];
  const docs = Array.from({ length: 12 }, (_, d) => {
    const sentences = Array.from({ length: 6 + (d % 4) }, (_, s) => {
      const filler = '其人清廉勤政，百姓稱之'.slice(0, 3 + ((d * 7 + s * 3) % 9));
      return `張${d}於${1500 + d * 10 + s}年任${places[(d + s) % 8]}${offices[(d * 3 + s) % 8]}，${filler}。`;
    });
    return { id: `d${d}`, title: `張${d}傳`, text: sentences.join('') };
  });
  writeFileSync(join(dir, 'source.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  const questions = Array.from({ length: 10 }, (_, q) => {
    const d = q % 12;
    const s = q % 5;
    return { id: `q${q}`, question: `張${d}於${1500 + d * 10 + s}年任何官？`, answer: `${places[(d + s) % 8]}${offices[(d * 3 + s) % 8]}` };
  });
  writeFileSync(join(dir, 'bench.jsonl'), questions.map((q) => JSON.stringify(q)).join('\n') + '\n');
  const corpus = (name: string, size: number) =>
    `    - { name: ${name}, builder: { name: json, input: ${join(dir, 'source.jsonl')} }, out: ${join(dir, name)}, chunking: { maxSize: ${size}, unit: chars } }`;
  const index = (name: string) => `    - { out: ${join(dir, `${name}-bm25`)}, corpus: ${join(dir, name)}, retriever: bm25 }`;
  const config = join(dir, `${options.name ?? 'depth'}.yaml`);
  writeFileSync(
    config,
    [
      `name: ${options.name ?? 'depth'}`,
      `output: ${join(dir, 'runs')}`,
      'prepare:',
      '  corpora:',
      corpus('mini-s', 40),
      corpus('mini-l', 160),
      '  indexes:',
      index('mini-s'),
      index('mini-l'),
      `benchmark: { name: jsonl, file: ${join(dir, 'bench.jsonl')} }`,
      'retrieval:',
      '  retrievers:',
      `    - { name: bm25, label: small, index: ${join(dir, 'mini-s-bm25')} }`,
      `    - { name: bm25, label: large, index: ${join(dir, 'mini-l-bm25')} }`,
      `  k: [${(options.k ?? [2, 8, 30]).join(', ')}]`,
      `  contextTokens: [${(options.contextTokens ?? [150, 300, 600]).join(', ')}]`,
      'strategies: [closed-book, rag]',
      'models: [{ name: extractive }]',
      'scoring: { bootstrapResamples: 200 }',
      '',
    ].join('\n'),
  );
  return config;
}
