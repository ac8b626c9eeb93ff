import { z } from 'zod';

/** ProHist-Bench categories → task ids (DESIGN.md). */
export const PROHIST_TASKS: Record<string, string> = {
  名词解释: 'T1',
  简答题: 'T2',
  论述题: 'T3',
  策论题: 'T4',
  八股文: 'T4',
  选择题: 'MCQ',
};

/**
 * One question, normalised across benchmarks. `kind` decides how the shared scorer treats
 * it: `rubric` (ProHist open questions, LLM or lexical judge), `mcq` (boxed letters),
 * `longhisdoc` (typed answer, generalised accuracy), `reference` (free text vs reference answer).
 */
export const BenchmarkItemSchema = z.object({
  id: z.string(),
  benchmark: z.string(),
  kind: z.enum(['rubric', 'mcq', 'longhisdoc', 'reference']),
  question: z.string(),
  category: z.string().describe('Category label as in the source (`名词解释`, `Single Page` ...)'),
  task: z.string().optional().describe('T1..T4/MCQ for ProHist; LongHisDoc `type`'),
  rubrics: z.string().optional(),
  referenceAnswer: z.string().optional(),
  lengthConstraint: z.number().int().positive().optional(),
  answer: z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).optional().describe('MCQ letters (`ADEF`) or LongHisDoc gold (string or list)'),
  answerType: z.enum(['Str', 'List', 'Int', 'None', 'Bool', 'Enum']).optional(),
  docId: z.string().optional().describe('LongHisDoc: document and one-based evidence/input pages'),
  evidencePages: z.array(z.number().int().positive()).optional(),
  inputPages: z.array(z.number().int().positive()).optional(),
  evidenceModal: z.string().optional(),
  goldChunkIds: z.array(z.string()).optional().describe('Gold chunk ids, when a benchmark names them'),
  goldSpans: z.array(z.object({ doc: z.string(), start: z.number().int().nonnegative(), end: z.number().int().positive() })).optional().describe('Gold evidence as character spans of corpus documents (`{doc, start, end}`, code points), the same for any chunking'),
  goldEvidence: z.array(z.string().min(1)).optional().describe('Gold evidence as text, located in the corpus\'s documents (exactly, else by a whitespace/punctuation-insensitive rule)'),
  origin: z.string().optional().describe('Where the record is (`<file>: line 3`), for messages about it'),
  /** Breakdown keys from the record's own metadata fields (a benchmark's `metadata:` list, a JSONL record's `metadata` object). */
  groups: z.record(z.string(), z.string()).optional(),
  meta: z.record(z.string(), z.unknown()).default({}),
});
export type BenchmarkItem = z.infer<typeof BenchmarkItemSchema>;

/** A benchmark as built from the config: loads its (filtered, sampled) items on demand. */
export interface Benchmark {
  /** Registry name (`prohist`, `longhisdoc`, `jsonl`). */
  readonly name: string;
  load(): Promise<BenchmarkItem[]>;
  /** For run manifests: files with their sha256, filters, counts. */
  describe(): BenchmarkDescription;
}

/** A benchmark as run manifests record it: the fields run logs and the viewer read, typed; anything else as is. */
export type BenchmarkDescription = {
  name: string;
  label?: string;
  /** Absolute: the page images its prompts may show. */
  imageDir?: string;
  // PageImageSummary's shape (corpus/longhisdoc/pageImages.ts), declared here: the viewer's browser client reads these types and cannot import Node modules.
  images?: { documents: number; pages: number; problems: Partial<Record<string, number>>; examples: string[] };
  /** ProHist records without a rubric left out (`onUnscorable: skip`): how many, and the first ids. */
  skippedUnscorable?: { count: number; ids: string[] };
  [key: string]: unknown;
};
