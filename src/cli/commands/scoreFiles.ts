// `hisrag score`'s work, loaded when one of its commands runs (score.ts declares the commands).
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { formatZodIssues, InputError } from '../../errors.js';
import { atomicWrite, atomicWriteJson } from '../../io/atomicWrite.js';
import { jsonlEntries, type JsonlEntry } from '../../io/jsonl.js';
import { createProgress } from '../../progress/progress.js';
import { judgeAgreement, VerdictRecordSchema, type VerdictRecord } from '../../scoring/agreement.js';
import type { ScoreSummary } from '../../statistics/bootstrap.js';
import type { ScoringCompat } from '../../scoring/compat.js';
import { readLongHisDocShape } from '../../benchmarks/longhisdoc/schema.js';
import { rescoreLongHisDocRecord, ScoredLongHisDocRecordSchema, type ScoredLongHisDocRecord } from '../../scoring/rescore/longhisdocRecord.js';
import { rescoreRubricRecord, SavedRubricRecordSchema } from '../../scoring/rescore/rubricRecord.js';
import { summarizeBy } from '../../scoring/summarizeBy.js';

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(`${path}: cannot read (${(error as Error).message})`);
  }
}

/** Checks one JSONL line against a schema; a problem names the record index, the line and the field. */
function parseJsonlRecord<T>(entry: JsonlEntry, index: number, schema: z.ZodType<T>): { data: T } | { problem: string } {
  if ('notJson' in entry) return { problem: `record ${index} (line ${entry.line}): not valid JSON (${entry.notJson})` };
  const parsed = schema.safeParse(entry.value);
  return parsed.success ? { data: parsed.data } : { problem: `record ${index} (line ${entry.line}): ${formatZodIssues(parsed.error)}` };
}

/** Pads to a terminal width where CJK characters take two columns. */
function padDisplay(text: string, width: number): string {
  const used = [...text].reduce((n, ch) => n + (/[\u1100-\uffff]/.test(ch) ? 2 : 1), 0);
  return text + ' '.repeat(Math.max(1, width - used));
}

const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
const summaryLine = (label: string, s: ScoreSummary) => `  ${padDisplay(label, 16)}${fmt(s.mean).padStart(7)}  [${fmt(s.ciLow)}, ${fmt(s.ciHigh)}]  n=${s.n}\n`;

function printBreakdown(title: string, groups: Record<string, ScoreSummary>): void {
  process.stdout.write(`by ${title}:\n`);
  for (const [key, summary] of Object.entries(groups)) process.stdout.write(summaryLine(key || '(none)', summary));
}

function failIfBad(input: string, problems: string[], written: number, output: string): void {
  if (problems.length === 0) return;
  throw new InputError(
    `${input}: ${problems.length} bad record(s) skipped (the ${written} good one(s) were written to ${output}):\n` + problems.map((p) => `  ${p}`).join('\n'),
  );
}

export interface RubricOptions {
  input: string;
  output: string;
  compat: ScoringCompat;
  seed: number;
}

export async function scoreRubricFile(options: RubricOptions): Promise<void> {
  const lines = jsonlEntries(await readText(options.input));
  const problems: string[] = [];
  const out: string[] = [];
  const scored: Array<{ category: string; rs: number }> = [];
  let failed = 0;
  const progress = createProgress({ label: 'scoring', total: lines.length, unit: 'records', plain: true });
  for (const [index, entry] of lines.entries()) {
    progress.tick();
    const parsed = parseJsonlRecord(entry, index, SavedRubricRecordSchema);
    if ('problem' in parsed) {
      problems.push(parsed.problem);
      continue;
    }
    const result = await rescoreRubricRecord(parsed.data, options.compat);
    const { status, score, scoreRaw, rule, verdicts, error, extra } = result;
    out.push(
      JSON.stringify({
        ...parsed.data,
        rs: score,
        rs_raw: scoreRaw,
        status,
        ...(rule ? { rule } : {}),
        ...(verdicts ? { verdicts } : {}),
        ...(extra?.judgeStrayLines ? { stray_lines: extra.judgeStrayLines } : {}),
        ...(error ? { error } : {}),
      }),
    );
    if (status === 'scored' && score !== null) scored.push({ category: parsed.data.category ?? '', rs: score });
    else failed++;
  }
  progress.stop();
  await atomicWrite(options.output, out.join('\n') + (out.length ? '\n' : ''));
  const summary = summarizeBy(scored, (r) => r.rs, (r) => r.category, { seed: options.seed });
  process.stdout.write(`Rubric Score (${options.compat} parsing), mean with 95% bootstrap CI:\n`);
  process.stdout.write(summaryLine('overall', summary.all));
  printBreakdown('category', summary.groups);
  process.stdout.write(`scored ${scored.length}, judge failures ${failed} (excluded from means), bad records ${problems.length}\n`);
  process.stdout.write(`written: ${options.output}\n`);
  failIfBad(options.input, problems, out.length, options.output);
}

export interface LongHisDocOptions {
  input: string;
  output: string;
  seed: number;
}

export async function scoreLongHisDocFile(options: LongHisDocOptions): Promise<void> {
  const shape = await readLongHisDocShape(options.input);
  const problems: string[] = [];
  const out: Record<string, unknown[]> = {};
  const rows: Array<{ record: ScoredLongHisDocRecord; accuracy: number }> = [];
  let failed = 0;
  const total = Object.values(shape).reduce((n, records) => n + records.length, 0);
  const progress = createProgress({ label: 'scoring', total, unit: 'records', plain: true });
  for (const [docId, records] of Object.entries(shape)) {
    out[docId] = [];
    for (const [index, raw] of records.entries()) {
      progress.tick();
      const parsed = ScoredLongHisDocRecordSchema.safeParse(raw);
      if (!parsed.success) {
        problems.push(`record ${docId}[${index}]: ${formatZodIssues(parsed.error)}`);
        continue;
      }
      const result = await rescoreLongHisDocRecord(parsed.data);
      const accuracy = result.score === null ? null : result.score / 100;
      out[docId]!.push({
        ...parsed.data,
        ...(result.extracted !== undefined ? { extracted: result.extracted } : {}),
        score: accuracy,
        ...(result.rule ? { rule: result.rule } : {}),
        ...(result.error ? { error: result.error } : {}),
      });
      if (accuracy === null) failed++;
      else rows.push({ record: parsed.data, accuracy });
    }
  }
  progress.stop();
  await atomicWriteJson(options.output, out);
  const value = (r: (typeof rows)[number]) => r.accuracy * 100;
  const opts = { seed: options.seed };
  process.stdout.write('LongHisDoc generalised accuracy × 100, mean with 95% bootstrap CI:\n');
  process.stdout.write(summaryLine('overall', summarizeBy(rows, value, () => '', opts).all));
  printBreakdown('type', summarizeBy(rows, value, (r) => r.record.type, opts).groups);
  printBreakdown('answer_type', summarizeBy(rows, value, (r) => r.record.answer_type, opts).groups);
  printBreakdown('evidence_modal', summarizeBy(rows, value, (r) => r.record.evidence_modal, opts).groups);
  process.stdout.write(`scored ${rows.length}, extraction failures ${failed}, bad records ${problems.length}\n`);
  process.stdout.write(`written: ${options.output}\n`);
  failIfBad(options.input, problems, rows.length + failed, options.output);
}

/**
 * Reads a verdict file. Multiple-choice lines (category 选择题, as `hisrag score rubric` writes
 * them) have no judge verdicts, being scored by their letters: they are left out and counted.
 */
async function readVerdictFile(path: string): Promise<{ records: VerdictRecord[]; multipleChoice: number }> {
  const records: VerdictRecord[] = [];
  const problems: string[] = [];
  let multipleChoice = 0;
  for (const [index, entry] of jsonlEntries(await readText(path)).entries()) {
    if (isMultipleChoiceLine(entry)) {
      multipleChoice++;
      continue;
    }
    const parsed = parseJsonlRecord(entry, index, VerdictRecordSchema);
    if ('problem' in parsed) problems.push(parsed.problem);
    else records.push(parsed.data);
  }
  if (problems.length > 0) throw new InputError(`${path}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return { records, multipleChoice };
}

function isMultipleChoiceLine(entry: JsonlEntry): boolean {
  const value = 'value' in entry ? (entry.value as { category?: unknown; verdicts?: unknown; judge_output?: unknown } | null) : null;
  return value?.category === '选择题' && value.verdicts === undefined && value.judge_output === undefined;
}

export interface AgreementOptions {
  a: string;
  b: string;
  compat: ScoringCompat;
}

export async function printAgreement(options: AgreementOptions): Promise<void> {
  const a = await readVerdictFile(options.a);
  const b = await readVerdictFile(options.b);
  const result = judgeAgreement(a.records, b.records, { compat: options.compat });
  const r = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'undefined (no variance)');
  process.stdout.write(`rubric-item level  Pearson r = ${r(result.itemLevel.r)}  (n=${result.itemLevel.n} item verdicts)\n`);
  process.stdout.write(`answer level       Pearson r = ${r(result.answerLevel.r)}  (n=${result.answerLevel.n} answers)\n`);
  if (result.onlyA || result.onlyB) process.stdout.write(`unpaired answers: ${result.onlyA} only in --a, ${result.onlyB} only in --b\n`);
  if (a.multipleChoice || b.multipleChoice) {
    process.stdout.write(`left out: ${a.multipleChoice} multiple-choice lines in --a, ${b.multipleChoice} in --b (scored by their letters, not judged)\n`);
  }
}
