import { z } from 'zod';

/** How documents are cut into chunks; a section of a corpus build config. */
export const ChunkingOptionsSchema = z.strictObject({
  maxSize: z.number().int().positive().default(512).describe('Largest chunk, in `unit`s'),
  unit: z.enum(['chars', 'tokens']).default('chars').describe('`chars` counts code points; `tokens` counts the embedder\'s tokens (needs `tokenizer`)'),
  overlap: z.number().int().nonnegative().default(0).describe('Trailing sentences of a chunk repeated at the start of the next, up to this size'),
  tokenizer: z.string().min(1).optional().describe('Local directory holding `tokenizer.json` (+ `tokenizer_config.json`), or `tiktoken:<encoding>` (an OpenAI encoding such as `tiktoken:o200k_base`), for `unit: tokens`'),
  // `fixed` is AutoRAG's and Chroma's fixed-size baseline.
  method: z.enum(['sentences', 'fixed']).optional().describe('How a section is cut: `sentences` (default) packs whole sentences; `fixed` cuts windows of `maxSize` regardless of sentences, overlapping by `overlap`, each its range of the text as it is'),
  headingPrefix: z.boolean().default(false).describe('Prefix each chunk\'s text with its section heading path (it is always in `meta.section`)'),
}).refine((o) => o.overlap < o.maxSize, { message: 'overlap must be smaller than maxSize', path: ['overlap'] })
  .refine((o) => o.unit !== 'tokens' || o.tokenizer !== undefined, { message: 'unit "tokens" needs a tokenizer directory', path: ['tokenizer'] });
export type ChunkingOptions = z.infer<typeof ChunkingOptionsSchema>;

/** Size of a text in the chunker's unit (code points or tokens, special tokens excluded). */
export type SizeMeasure = (text: string) => number;

/** What a corpus builder yields and the chunker reads: one document (article, OCR page, poem ...). */
export interface SourceDocument {
  /** The document chunks belong to (retrieval scopes by it: for LongHisDoc, the book). */
  docId: string;
  /**
   * Key in chunk ids (`<corpus>:<idKey>:<n>`) when several source documents share one docId —
   * LongHisDoc's pages of one book; defaults to docId.
   */
  idKey?: string;
  title: string;
  /** Plain text; paragraphs separated by blank lines. Section headings may be kept inline. */
  text: string;
  meta: Record<string, unknown>;
  /**
   * When the text joins other documents' texts (LongHisDoc's page windows): each part's document
   * (its `idKey`) and range [start, end) here, so a chunk's place is given in the parts (`meta.spans`).
   */
  parts?: { doc: string; start: number; end: number }[];
}

/** One titled part of a document; chunks never span two sections. */
export interface DocumentSection {
  /** Heading path from the top (e.g. ['生平', '仕途']); empty for the lead section. */
  headings: string[];
  text: string;
}

/** A source document whose text comes in sections (Wikipedia articles); `text` then joins them. */
export interface SectionedDocument extends SourceDocument {
  sections?: DocumentSection[];
}
