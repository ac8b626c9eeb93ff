import { z } from 'zod';
import type { BenchmarkItem } from '../../benchmarks/types.js';
import type { RetrievedChunk } from '../../retrieval/types.js';

/** A path into a JSON value: `data.answer`, `data.sources[0].content`, `output.context.0`; `$` (or empty) is the value itself. */
export const PathSchema = z.string().regex(/^(\$|[\w$-]+(\[\d+\])*(\.[\w$-]+(\[\d+\])*)*)$/, { error: 'expected a path such as data.answer or data.sources[0].text' });

/**
 * Where an external system's reply (an HTTP JSON body, a chain's output, a saved line) holds the
 * answer, the contexts it used, and what it spent. Context fields are paths inside one context;
 * left out, the usual names are tried (`text`/`content`/`pageContent`/`page_content`, `id`,
 * `title`, `page`/`metadata.page`, `docId`/`doc_id`, `score`).
 */
export const ResponseMappingSchema = z
  .object({
    answer: PathSchema.optional(),
    contexts: PathSchema.optional(),
    contextText: PathSchema.optional(),
    contextId: PathSchema.optional(),
    contextTitle: PathSchema.optional(),
    contextPage: PathSchema.optional().describe('One-based page number (LongHisDoc: pages of the item\'s document)'),
    contextDocId: PathSchema.optional(),
    contextScore: PathSchema.optional(),
    promptTokens: PathSchema.optional(),
    completionTokens: PathSchema.optional(),
    totalTokens: PathSchema.optional(),
    cost: PathSchema.optional().describe('What the system charged for the answer (any one currency): the record\'s price'),
  })
  .strict();
export type ResponseMapping = z.infer<typeof ResponseMappingSchema>;

const CANDIDATES = {
  contextText: ['text', 'content', 'pageContent', 'page_content'],
  contextId: ['id', 'metadata.id', 'chunk_id'],
  contextTitle: ['title', 'metadata.title'],
  contextPage: ['page', 'metadata.page', 'metadata.meta.page', 'page_number', 'metadata.page_number'],
  contextDocId: ['docId', 'doc_id', 'metadata.docId', 'metadata.doc_id', 'metadata.meta.doc_id'],
  contextScore: ['score', 'metadata.score'],
  promptTokens: ['usage.promptTokens', 'usage.prompt_tokens', 'usage.input_tokens'],
  completionTokens: ['usage.completionTokens', 'usage.completion_tokens', 'usage.output_tokens'],
  totalTokens: ['usage.totalTokens', 'usage.total_tokens'],
  cost: ['usage.cost', 'cost'],
} as const;

function segments(path: string): (string | number)[] {
  if (path === '$' || path === '') return [];
  const out: (string | number)[] = [];
  for (const part of path.split('.')) {
    const m = /^([^[]+)((?:\[\d+\])*)$/.exec(part);
    if (!m) return [part];
    out.push(/^\d+$/.test(m[1]!) ? Number(m[1]) : m[1]!);
    for (const index of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(index[1]));
  }
  return out;
}

/** The value at `path` inside `value`, or undefined. */
export function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const key of segments(path)) {
    if (current === null || current === undefined || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** One problem with a reply: the field (its path) and what is wrong. */
export interface MappingProblem {
  field: string;
  message: string;
}

export interface MappedReply {
  answer: string;
  contexts: RetrievedChunk[];
  usage?: { promptTokens: number; completionTokens: number };
  cost?: number;
}

const describeType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v).slice(0, 40)}`);

/** The given path, or the first of the usual ones that is present. */
function pick(value: unknown, given: string | undefined, candidates: readonly string[]): { path: string; value: unknown } | undefined {
  if (given) return { path: given, value: valueAt(value, given) };
  for (const path of candidates) {
    const found = valueAt(value, path);
    if (found !== undefined && found !== null) return { path, value: found };
  }
  return undefined;
}

/** A field at its given or usual path, converted: absent is undefined; a value `convert` rejects is a problem naming its path. */
function field<T>(
  value: unknown,
  given: string | undefined,
  candidates: readonly string[],
  at: string,
  problems: MappingProblem[],
  expected: string,
  convert: (v: unknown) => T | undefined,
): T | undefined {
  const found = pick(value, given, candidates);
  if (!found || found.value === undefined || found.value === null) return undefined;
  const converted = convert(found.value);
  if (converted === undefined) problems.push({ field: `${at}${found.path}`, message: `expected ${expected}, got ${describeType(found.value)}` });
  return converted;
}

export interface MapOptions {
  /** Path of the answer when the mapping names none (`answer`; `$` for a chain whose output is the answer). */
  defaultAnswer: string;
  /** Path of the contexts when the mapping names none (undefined: the reply has none, or they come from elsewhere). */
  defaultContexts?: string;
  /** Prefix of the ids given to contexts that carry neither id nor title. */
  idPrefix: string;
}

/**
 * Reads answer, contexts and usage out of a reply. Contexts become retrieved chunks in the
 * system's order, matched to gold like hisrag's own: by id (gold chunk ids), by title when they
 * carry no id and the gold names titles, by page within the item's document (LongHisDoc evidence pages; a context without a
 * document id belongs to the item's). Every problem is reported, each naming its field.
 */
export function mapReply(reply: unknown, mapping: ResponseMapping, item: BenchmarkItem, options: MapOptions): { reply?: MappedReply; problems: MappingProblem[] } {
  const problems: MappingProblem[] = [];
  const answerPath = mapping.answer ?? options.defaultAnswer;
  const rawAnswer = valueAt(reply, answerPath);
  let answer = '';
  if (typeof rawAnswer === 'string') answer = rawAnswer;
  else if (typeof rawAnswer === 'number' || typeof rawAnswer === 'boolean') answer = String(rawAnswer);
  else problems.push({ field: answerPath, message: rawAnswer === undefined ? 'missing (expected the answer as a string)' : `expected the answer as a string, got ${describeType(rawAnswer)}` });

  const contexts: RetrievedChunk[] = [];
  const contextsPath = mapping.contexts ?? options.defaultContexts;
  const list = contextsPath ? valueAt(reply, contextsPath) : undefined;
  if (list !== undefined && list !== null && !Array.isArray(list)) {
    problems.push({ field: contextsPath!, message: `expected a list of passages (strings or objects with their text), got ${describeType(list)}` });
  } else if (Array.isArray(list)) {
    const seen = new Map<string, number>();
    list.forEach((entry, i) => {
      const at = `${contextsPath}[${i}]`;
      const chunk = contextChunk(entry, i, at, mapping, item, options, problems);
      if (!chunk) return;
      // Ids must be unique within a record; a repeated one (two chunks of one title) gets a suffix.
      const n = (seen.get(chunk.id) ?? 0) + 1;
      seen.set(chunk.id, n);
      contexts.push(n > 1 ? { ...chunk, id: `${chunk.id}#${n}` } : chunk);
    });
  }

  const count = (key: 'promptTokens' | 'completionTokens' | 'totalTokens' | 'cost') =>
    field(reply, mapping[key], CANDIDATES[key], '', problems, 'a non-negative number', (v) => {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
    });
  const prompt = count('promptTokens');
  const completion = count('completionTokens');
  const total = count('totalTokens');
  const cost = count('cost');
  const completionTokens = completion ?? (total !== undefined && prompt !== undefined ? total - prompt : undefined);
  if (problems.length) return { problems };
  return {
    reply: {
      answer,
      contexts,
      ...(prompt !== undefined && completionTokens !== undefined ? { usage: { promptTokens: prompt, completionTokens } } : {}),
      ...(cost !== undefined ? { cost } : {}),
    },
    problems,
  };
}

function contextChunk(entry: unknown, i: number, at: string, mapping: ResponseMapping, item: BenchmarkItem, options: MapOptions, problems: MappingProblem[]): RetrievedChunk | undefined {
  if (typeof entry === 'string') {
    return { id: `${options.idPrefix}:${item.id}:${i + 1}`, docId: item.docId ?? options.idPrefix, title: '', text: entry, meta: {}, rank: i + 1, score: 0 };
  }
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
    problems.push({ field: at, message: `expected a passage (a string, or an object with its text), got ${describeType(entry)}` });
    return undefined;
  }
  const before = problems.length;
  const text = pick(entry, mapping.contextText, CANDIDATES.contextText);
  if (!text || typeof text.value !== 'string') {
    const field = `${at}.${mapping.contextText ?? CANDIDATES.contextText.join('|')}`;
    problems.push({ field, message: text ? `expected the passage text as a string, got ${describeType(text.value)}` : 'missing (expected the passage text as a string)' });
  }
  const asString = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);
  const scalar = (key: 'contextId' | 'contextTitle' | 'contextDocId') => field(entry, mapping[key], CANDIDATES[key], `${at}.`, problems, 'a string or number', asString);
  const id = scalar('contextId');
  const title = scalar('contextTitle');
  const docId = scalar('contextDocId');
  const page = field(entry, mapping.contextPage, CANDIDATES.contextPage, `${at}.`, problems, 'a one-based page number', (v) => {
    const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
    return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : undefined;
  });
  const finite = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const score = field(entry, mapping.contextScore, CANDIDATES.contextScore, `${at}.`, problems, 'a number', finite) ?? 0;
  if (problems.length > before) return undefined;
  const book = docId ?? item.docId;
  return {
    // A title stands for the id where the benchmark's gold names titles (gold chunk ids that are titles).
    id: id ?? (title !== undefined && item.goldChunkIds?.includes(title) ? title : `${options.idPrefix}:${item.id}:${i + 1}`),
    docId: book ?? options.idPrefix,
    title: title ?? '',
    text: text!.value as string,
    meta: { ...(page !== undefined ? { page } : {}), ...(book !== undefined ? { doc_id: book } : {}) },
    rank: i + 1,
    score,
  };
}

/** One line per problem: `<where>: <field>: <message>`. */
export function describeProblems(where: string, problems: MappingProblem[]): string[] {
  return problems.map((p) => `${where}: ${p.field}: ${p.message}`);
}
