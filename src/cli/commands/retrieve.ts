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
    .option('--query <text>', 'the question')
    .option('--queries <file.jsonl>', 'many questions in one process, one JSON line each ({"id"?, "query", "doc"?, "gold"?: [chunk ids]}); prints one JSON line per question with its top k')
    .option('--gold [file.jsonl]', 'with --queries: compute recall, nDCG, MRR, precision and AP at k per question and their means (stderr); gold from each line\'s "gold", or from this file ({"id", "gold"})')
    .option('-k, --k <n>', 'number of chunks', '10')
    .option('--json', 'one JSON object per hit line: id, score, title, text, meta (plus rank, docId)')
    .option('--doc <docId>', "rank only this document's chunks (LongHisDoc: the pages of one book)")
    .option('--retriever <name>', 'hnsw | exact | bm25 | lancedb (default: the index kind)')
    .option('--ef-search <n>', 'HNSW query breadth (default: the index manifest)')
    .action(async (opts) => {
      const k = Number(opts.k);
      if (!Number.isInteger(k) || k <= 0) throw new InputError(`-k: expected a positive integer, got "${opts.k}"`);
      if ((opts.query === undefined) === (opts.queries === undefined)) throw new InputError('give either --query <text> or --queries <file.jsonl>');
      if (opts.gold !== undefined && opts.queries === undefined) throw new InputError('--gold: only with --queries');
      if (opts.query !== undefined && !String(opts.query).trim()) throw new InputError('--query: empty; give the question to retrieve for');
      // Loaded on use so that the CLI starts fast.
      const { requireCompleteIndexManifest } = await import('../../runFiles/indexManifest.js');
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
        if (opts.queries !== undefined) {
          const { metricsLine, readQueryFile, retrieveQueryFile } = await import('../../app/retrieveQueries.js');
          const queries = await readQueryFile(opts.queries, typeof opts.gold === 'string' ? opts.gold : undefined);
          const results = await retrieveQueryFile(retriever, queries, k, { indexDir: opts.index, write: (result) => process.stdout.write(`${JSON.stringify(result)}\n`) });
          const line = opts.gold !== undefined ? metricsLine(results, k) : undefined;
          if (opts.gold !== undefined) process.stderr.write(`${line ?? 'no question has gold chunk ids'}\n`);
          return;
        }
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
