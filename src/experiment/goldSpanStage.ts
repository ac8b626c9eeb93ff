import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { placeGoldSpans, type GoldSpan } from '../benchmarks/goldSpans.js';
import type { BenchmarkItem } from '../benchmarks/types.js';
import { CHUNK_SPAN_FORMAT } from '../chunking/chunker.js';
import { type CorpusManifest, readCorpusDocuments, readCorpusManifest } from '../runFiles/corpusFiles.js';
import { readIndexManifest } from '../runFiles/indexManifest.js';

/** What the run's start-up says of the gold evidence it placed, and what it could not place. */
export interface GoldSpanStage {
  /** The item's gold spans in the documents the retriever's corpus is made of; undefined without span gold. */
  spansFor(item: BenchmarkItem, retrieverLabel: string | null): GoldSpan[] | undefined;
  /** Start-up lines: per corpus, the evidence texts that could not be placed (a warning listing them). */
  lines: string[];
}

const itemKey = (item: BenchmarkItem) => `${item.benchmark}:${item.id}`;
const needsSpans = (item: BenchmarkItem) => Boolean(item.goldSpans?.length || item.goldEvidence?.length || (item.evidencePages?.length && item.docId));

/** The index folders a retriever spec reads (a fused retriever's children's too). */
function indexDirsOf(spec: Record<string, unknown>): string[] {
  return [...(typeof spec.index === 'string' ? [spec.index] : []), ...(Array.isArray(spec.retrievers) ? spec.retrievers.flatMap((child) => indexDirsOf(child as Record<string, unknown>)) : [])];
}

/**
 * Places the items' gold evidence (spans, evidence texts, LongHisDoc pages) in the documents of each
 * retriever's corpus (`documents.jsonl`, found through its index's manifest), once per distinct set of
 * documents: the corpora of a chunking sweep share theirs, so their gold is one and the same.
 */
export async function placeGoldForRetrievers(items: BenchmarkItem[], retrievers: { label: string; spec: Record<string, unknown> }[]): Promise<GoldSpanStage> {
  const wanted = items.filter(needsSpans).map((item) => ({ key: itemKey(item), item }));
  const byRetriever = new Map<string, Map<string, GoldSpan[]>>();
  const lines: string[] = [];
  if (wanted.length > 0) {
    const byDocuments = new Map<string, Map<string, GoldSpan[]>>();
    for (const { label, spec } of retrievers) {
      const indexDirs = indexDirsOf(spec);
      const corpus = await corpusOf(indexDirs);
      if (!corpus) {
        if (indexDirs.length > 0) lines.push(`warning: ${label}'s corpus keeps no documents.jsonl (built before corpora kept their documents' texts): no span metrics for it; rebuild the corpus to have them`);
        continue;
      }
      const { dir: corpusDir, indexedHash } = corpus;
      const manifest = await readCorpusManifest(corpusDir);
      const stale = staleSpans(manifest, indexedHash);
      if (stale) {
        lines.push(`warning: ${label}: ${stale}: no span metrics for it; rebuild with hisrag prepare to have them`);
        continue;
      }
      const documentsKey = manifest.documentsHash ?? corpusDir;
      let placed = byDocuments.get(documentsKey);
      if (!placed) {
        const result = await placeGoldSpans(wanted, () => readCorpusDocuments(corpusDir));
        placed = result.spans;
        byDocuments.set(documentsKey, placed);
        if (result.unplaced.length > 0) {
          const listed = result.unplaced.slice(0, 10).map((u) => `${u.origin ?? u.key} "${u.text.length > 30 ? `${u.text.slice(0, 30)}…` : u.text}"`);
          lines.push(`warning: gold evidence of ${result.unplaced.length} item${result.unplaced.length > 1 ? 's' : ''} not found in ${manifest.name}'s documents (exactly or ignoring whitespace and punctuation), left out of their span metrics: ${listed.join('; ')}${result.unplaced.length > 10 ? '; …' : ''}`);
        }
      }
      byRetriever.set(label, placed);
    }
  }
  return {
    spansFor(item, retrieverLabel) {
      if (retrieverLabel === null) return undefined;
      const spans = byRetriever.get(retrieverLabel)?.get(itemKey(item));
      return spans?.length ? spans : undefined;
    },
    lines,
  };
}

/** The corpus folder of the first index that names one whose corpus kept its documents, and the corpus content the index was built from. */
async function corpusOf(indexDirs: string[]): Promise<{ dir: string; indexedHash: string } | undefined> {
  for (const dir of indexDirs) {
    const corpus = readIndexManifest(dir)?.corpus;
    if (corpus && existsSync(join(corpus.dir, 'documents.jsonl'))) return { dir: corpus.dir, indexedHash: corpus.contentHash };
  }
  return undefined;
}

/**
 * Why the chunk spans the index serves cannot be scored against gold placed in the corpus's documents:
 * the corpus was built with spans of an earlier format (UTF-16 offsets trimmed to non-whitespace:
 * recall and precision would not mean what they mean now), or rebuilt since the index was.
 */
function staleSpans(manifest: CorpusManifest, indexedHash: string): string | undefined {
  const format = manifest.inputs?.settings.spanFormat ?? 1;
  if (format !== CHUNK_SPAN_FORMAT) return `corpus ${manifest.name} has chunk spans of format ${String(format)} (this hisrag reads ${CHUNK_SPAN_FORMAT}: code points, the separators between chunks included)`;
  if (manifest.contentHash !== indexedHash) return `its index was built from another build of corpus ${manifest.name} than the one there now`;
  return undefined;
}
