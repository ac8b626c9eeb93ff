import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import type { ExperimentConfig } from '../config/experiment.js';
import { DataFileError, InputError, formatZodIssues } from '../errors.js';
import { atomicWrite } from '../io/atomicWrite.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { appendLabels, listAnnotators, readAllLabels } from '../runFiles/labelFiles.js';
import { AnnotatorSchema, LABEL_FILE_VERSION, type AnswerLabel } from '../runFiles/labels.js';
import { parseRubric, verdictKey } from '../scoring/rubric/parseRubric.js';
import { scoreRubricVerdicts } from '../scoring/scoreItem.js';
import type { RubricItem } from '../scoring/types.js';
import { benchmarkItemsOf, readRunForLabels } from './labelSample.js';

/** What an annotator marks for one question: the rubric's items (hit/miss), or the answer as a whole (correct/incorrect). */
export interface LabelTarget {
  question: string;
  referenceAnswer: string | null;
  /** Rubric items with their verdict keys; empty for benchmarks scored right/wrong. */
  rubric: Array<RubricItem & { key: string }>;
}

/** Every benchmark item of the run, by item key (`<benchmark>:<id>`), as an annotator sees it. */
export async function labelTargets(config: ExperimentConfig): Promise<Map<string, LabelTarget>> {
  const out = new Map<string, LabelTarget>();
  for (const [key, item] of await benchmarkItemsOf(config)) {
    const rubric = item.rubrics ? parseRubric(item.rubrics, { compat: config.scoring.compat }).map((r) => ({ ...r, key: verdictKey(r) })) : [];
    out.set(key, { question: item.question, referenceAnswer: item.referenceAnswer ?? null, rubric });
  }
  return out;
}

export interface Marks {
  verdicts?: Record<string, 0 | 1> | undefined;
  correct?: 0 | 1 | undefined;
  note?: string | undefined;
}

/**
 * Checks marks against the answer's rubric and gives the score they imply by the benchmark's own rule:
 * RS from the verdicts through the scorer's rubric rule, accuracy × 100 for right/wrong, and the
 * rule's score where a rule decided it without a judge (an empty or over-length answer). Problems
 * come back as `field: message` lines.
 */
export function scoreMarks(record: RunItemRecord, target: LabelTarget | undefined, marks: Marks, compat: ExperimentConfig['scoring']['compat']): { score: number | null; problems: string[] } {
  const problems: string[] = [];
  // A rubric answer is marked item by item: without its rubric (benchmark file moved) it cannot be scored.
  if (record.kind === 'rubric' && !target?.rubric.length) return { score: null, problems: [`key: the rubric of ${record.benchmark}:${record.itemId} could not be read from the run's benchmark file`] };
  const rubric = target?.rubric ?? [];
  if (rubric.length) {
    if (marks.correct !== undefined) problems.push('correct: this answer is marked item by item (verdicts), not correct/incorrect');
    const verdicts = marks.verdicts ?? {};
    const expected = new Set(rubric.map((r) => r.key));
    for (const key of Object.keys(verdicts)) if (!expected.has(key)) problems.push(`verdicts.${key}: not an item of this answer's rubric (${[...expected].join(', ')})`);
    for (const key of expected) if (!(key in verdicts)) problems.push(`verdicts.${key}: missing (every rubric item is marked 1 hit or 0 miss)`);
    if (problems.length) return { score: null, problems };
    if (record.score.rule === 'empty-answer' || record.score.rule === 'over-length') return { score: record.score.score, problems };
    return { score: scoreRubricVerdicts(rubric, verdicts, { compat, strayLines: 0 }).score, problems };
  }
  if (marks.verdicts !== undefined) problems.push('verdicts: this answer has no rubric; mark it correct (1) or incorrect (0)');
  if (marks.correct === undefined) problems.push('correct: missing (1 correct, 0 incorrect)');
  return { score: problems.length ? null : marks.correct! * 100, problems };
}

/** A label of `record` from marks (already checked with `scoreMarks`). */
export function labelOf(record: RunItemRecord, annotator: string, marks: Marks, score: number | null, source: AnswerLabel['source'], at = new Date().toISOString(), synthetic = false): AnswerLabel {
  return {
    version: LABEL_FILE_VERSION,
    key: record.key,
    itemKey: `${record.benchmark}:${record.itemId}`,
    model: record.model,
    condition: record.condition,
    sample: record.sample ?? 0,
    annotator,
    ...(marks.verdicts !== undefined ? { verdicts: marks.verdicts } : {}),
    ...(marks.correct !== undefined ? { correct: marks.correct } : {}),
    score,
    ...(marks.note ? { note: marks.note } : {}),
    at,
    source,
    ...(synthetic ? { synthetic: true } : {}),
  };
}

/** One mark: 1 hit (correct), 0 miss (incorrect). */
export const MarkSchema = z.union([z.literal(0), z.literal(1)]);
const Mark = MarkSchema;
/** A label line made elsewhere: the answer's key and its marks (other fields, such as an export's, are recomputed from the run). */
const ImportLineSchema = z.looseObject({
  key: z.string().min(1),
  verdicts: z.record(z.string(), Mark).optional(),
  correct: Mark.optional(),
  note: z.string().optional(),
  at: z.string().min(1).optional(),
});
type ImportLine = z.infer<typeof ImportLineSchema>;

const CSV_COLUMNS = ['key', 'annotator', 'itemKey', 'model', 'condition', 'sample', 'item', 'mark', 'score', 'note', 'at', 'source'] as const;

/** RFC 4180 rows (quoted fields may hold commas, quotes and newlines), each with the line it starts on. */
function parseCsv(text: string): Array<{ line: number; cells: string[] }> {
  const rows: Array<{ line: number; cells: string[] }> = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else (cell += ch), ch === '\n' && line++;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') cells.push(cell), (cell = '');
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      cells.push(cell);
      if (cells.some((c) => c !== '')) rows.push({ line: rowLine, cells });
      (cells = []), (cell = ''), line++, (rowLine = line);
    } else cell += ch;
  }
  cells.push(cell);
  if (cells.some((c) => c !== '')) rows.push({ line: rowLine, cells });
  return rows;
}

/** CSV rows (one per rubric item, or one `correct` row per answer) grouped into import lines by answer key. */
function csvLines(file: string, text: string, problems: string[]): Array<{ line: number; value: unknown }> {
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  if (!header) return [];
  const column = (name: string) => header.cells.indexOf(name);
  for (const name of ['key', 'item', 'mark']) if (column(name) === -1) problems.push(`${file}:1: ${name}: missing column (needed: key, item, mark; optional: note, at)`);
  if (problems.length) return [];
  const byKey = new Map<string, { line: number; value: Record<string, unknown> }>();
  for (const row of rows) {
    const get = (name: string) => (column(name) === -1 ? undefined : row.cells[column(name)]);
    const key = get('key') ?? '';
    const item = get('item') ?? '';
    const markText = get('mark') ?? '';
    if (markText !== '0' && markText !== '1') {
      problems.push(`${file}:${row.line}: mark: expected 0 or 1, got "${markText}"`);
      continue;
    }
    const entry = byKey.get(key) ?? { line: row.line, value: { key, ...(get('note') ? { note: get('note') } : {}), ...(get('at') ? { at: get('at') } : {}) } };
    const mark = Number(markText) as 0 | 1;
    if (item === 'correct') entry.value.correct = mark;
    else entry.value.verdicts = { ...(entry.value.verdicts as object | undefined), [item]: mark };
    byKey.set(key, entry);
  }
  return [...byKey.values()];
}

function jsonlLines(file: string, text: string, problems: string[]): Array<{ line: number; value: unknown }> {
  const out: Array<{ line: number; value: unknown }> = [];
  text.split('\n').forEach((raw, index) => {
    if (!raw.trim()) return;
    try {
      out.push({ line: index + 1, value: JSON.parse(raw) });
    } catch {
      problems.push(`${file}:${index + 1}: not valid JSON`);
    }
  });
  return out;
}

/**
 * `hisrag annotate --import`: JSONL or CSV labels made elsewhere, checked against the run's records
 * and rubrics, scored by the benchmark's rule and appended; any bad line refuses the whole file.
 */
export async function importLabels(dir: string, file: string, annotator: string, options: { synthetic?: boolean } = {}): Promise<{ runDir: string; imported: number }> {
  const name = AnnotatorSchema.safeParse(annotator);
  if (!name.success) throw new InputError(`--annotator: ${formatZodIssues(name.error)}`);
  const { runDir, config, records } = await readRunForLabels(dir);
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new InputError(`${file}: cannot be read (${error.message})`);
  });
  const problems: string[] = [];
  const raw = extname(file).toLowerCase() === '.csv' ? csvLines(file, text, problems) : jsonlLines(file, text, problems);
  const byKey = new Map(records.map((r) => [r.key, r]));
  const targets = await labelTargets(config);
  const labels: AnswerLabel[] = [];
  const source = `import:${basename(file)}`;
  for (const { line, value } of raw) {
    const parsed = ImportLineSchema.safeParse(value);
    if (!parsed.success) {
      problems.push(`${file}:${line}: ${formatZodIssues(parsed.error)}`);
      continue;
    }
    const entry: ImportLine = parsed.data;
    const record = byKey.get(entry.key);
    if (!record) {
      problems.push(`${file}:${line}: key: "${entry.key}" is not an answer of this run`);
      continue;
    }
    const marks: Marks = { verdicts: entry.verdicts, correct: entry.correct, note: entry.note };
    const { score, problems: found } = scoreMarks(record, targets.get(`${record.benchmark}:${record.itemId}`), marks, config.scoring.compat);
    problems.push(...found.map((p) => `${file}:${line}: ${p}`));
    if (!found.length) labels.push(labelOf(record, annotator, marks, score, source, entry.at, options.synthetic));
  }
  if (problems.length) throw new DataFileError(problems.join('\n'));
  if (!labels.length) throw new DataFileError(`${file}: no labels in it`);
  await appendLabels(runDir, annotator, labels);
  return { runDir, imported: labels.length };
}

/**
 * The config's `labels:` files, imported into the run's label files once its answers are scored. An
 * annotator whose file the run already holds is left alone (a resumed run does not import twice).
 */
export async function importConfiguredLabels(runDir: string, config: ExperimentConfig): Promise<string[]> {
  const done: string[] = [];
  const present = new Set(await listAnnotators(runDir));
  for (const { file, annotator, synthetic } of config.labels ?? []) {
    if (present.has(annotator)) continue;
    const { imported } = await importLabels(runDir, file, annotator, { synthetic });
    done.push(`labels: imported ${imported} ${synthetic ? 'SYNTHETIC ' : ''}label(s) for ${annotator} from ${file}`);
  }
  return done;
}

/** `hisrag annotate --export`: every annotator's labels (latest per answer) as JSONL (label lines) or CSV (one row per marked item). */
export async function exportLabels(dir: string, file: string): Promise<{ exported: number }> {
  const { runDir } = await readRunForLabels(dir);
  const labels = [...(await readAllLabels(runDir)).values()].flat();
  if (extname(file).toLowerCase() === '.csv') {
    const rows = labels.flatMap((l) => {
      const marks: Array<[string, 0 | 1]> = l.verdicts ? Object.entries(l.verdicts) : l.correct !== undefined ? [['correct', l.correct]] : [];
      return marks.map(([item, mark]) => CSV_COLUMNS.map((c) => (c === 'item' ? item : c === 'mark' ? mark : l[c])));
    });
    // csv-stringify quotes fields with commas, quotes, CR or LF per RFC 4180, as parseCsv reads them; null/undefined → empty.
    await atomicWrite(file, stringify([[...CSV_COLUMNS], ...rows], { record_delimiter: 'unix' }));
  } else if (extname(file).toLowerCase() === '.jsonl') {
    await atomicWrite(file, labels.map((l) => JSON.stringify(l) + '\n').join(''));
  } else {
    throw new InputError(`--export ${file}: expected a .csv or .jsonl file name`);
  }
  return { exported: labels.length };
}
