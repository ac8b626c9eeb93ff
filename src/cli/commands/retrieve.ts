import type { Command } from 'commander';
import { InputError } from '../../errors.js';
import type { RetrievedChunk } from '../../retrieval/types.js';

function formatHit(hit: RetrievedChunk): string {
  const text = hit.text.replace(/\s+/g, ' ');
  const excerpt = [...text].length > 160 ? [...text].slice(0, 160).join('') + '…' : text;
  return `${hit.rank}. [${hit.score.toFixed(4)}] ${hit.title} (${hit.id})\n   ${excerpt}\n`;
}

export function registerRetrieveCommand(program: Command): void {
  program
    .command('retrieve')
    .description('Query an index: the top k chunks for a question (corpus-wide, or within one document with --doc)')
    .requiredOption('--index <dir>', 'index directory built by `hisrag index build`')
    .requiredOption('--query <text>', 'the question')
    .option('-k, --k <n>', 'number of chunks', '10')
    .option('--json', 'one JSON object per hit line: id, score, title, text, meta (plus rank, docId)')
    .option('--doc <docId>', "rank only this document's chunks (LongHisDoc: the pages of one book)")
    .option('--retriever <name>', 'hnsw | exact | bm25 | lancedb (default: the index kind)')
    .option('--ef-search <n>', 'HNSW query breadth (default: the index manifest)')
    .action(async (opts) => {
      const k = Number(opts.k);
      if (!Number.isInteger(k) || k <= 0) throw new InputError(`-k: expected a positive integer, got "${opts.k}"`);
      if (!String(opts.query).trim()) throw new InputError('--query: empty; give the question to retrieve for');
      // Loaded on use so that the CLI starts fast.
      const { requireCompleteIndexManifest } = await import('../../index/manifest.js');
      const { createRetriever } = await import('../../retrieval/createRetriever.js');
      const manifest = await requireCompleteIndexManifest(opts.index);
      const name: string = opts.retriever ?? manifest.kind;
      const spec: { name: string } & Record<string, unknown> = { name, index: opts.index };
      if (opts.efSearch !== undefined) {
        const ef = Number(opts.efSearch);
        if (!Number.isInteger(ef) || ef <= 0) throw new InputError(`--ef-search: expected a positive integer, got "${opts.efSearch}"`);
        spec.efSearch = ef;
      }
      const retriever = await createRetriever(spec);
      try {
        const hits = await retriever.retrieve({ text: opts.query, ...(opts.doc && { docId: opts.doc }) }, k);
        for (const hit of hits) {
          process.stdout.write(
            opts.json
              ? JSON.stringify({ id: hit.id, score: hit.score, title: hit.title, text: hit.text, meta: hit.meta, rank: hit.rank, docId: hit.docId }) + '\n'
              : formatHit(hit),
          );
        }
      } finally {
        await retriever.close();
      }
    });
}
