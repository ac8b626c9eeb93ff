/**
 * Writes a file of saved outputs, as a team's Python system would have left one: one JSON line per
 * question with RAGAS-style snake_case fields (`question_id`, `response`, `retrieved_contexts` of
 * `{ page_content, metadata: { doc_id, page } }`). Here the "system" is the LCEL chain of
 * examples/lcel-chain.ts over the BM25 index, two pages per question; `hisrag run
 * experiments/demo-external.yaml` then scores the file with the `outputs` method.
 *
 *   npx tsx examples/save-outputs.ts [out.jsonl]   # after the demo's prepare step built the indexes
 */
import { writeFileSync } from 'node:fs';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { DocumentInterface } from '@langchain/core/documents';
import { benchmarks } from 'hisrag';
import { createChain } from './lcel-chain.js';

class Pages extends BaseCallbackHandler {
  name = 'pages';
  override awaitHandlers = true;
  documents: DocumentInterface[] = [];
  override handleRetrieverEnd(documents: DocumentInterface[]): void {
    this.documents.push(...documents);
  }
}

const out = process.argv[2] ?? 'experiments/data/demo-external-outputs.jsonl';
const benchmark = await benchmarks.create({ name: 'longhisdoc', file: 'corpora/sources/demo-longhisdoc/qa.json' }, undefined);
const chain = await createChain({ index: 'indexes/demo-longhisdoc-pages-bm25', retriever: 'bm25', k: 2 });
const lines: string[] = [];
for (const item of await benchmark.load()) {
  const pages = new Pages();
  const response = (await chain.invoke({ question: item.question, docId: item.docId }, { callbacks: [pages] })) as string;
  const retrieved_contexts = pages.documents.map((d) => ({ page_content: d.pageContent, metadata: { doc_id: d.metadata.docId, page: (d.metadata.meta as { page?: number }).page } }));
  lines.push(JSON.stringify({ question_id: item.id, question: item.question, response, retrieved_contexts }));
}
writeFileSync(out, lines.join('\n') + '\n');
console.log(`${lines.length} saved outputs → ${out}`);
