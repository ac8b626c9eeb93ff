import { readFile } from 'node:fs/promises';
import type { BenchmarkItem } from '../benchmarks/types.js';
import { DataFileError } from '../errors.js';
import { describeProblems, mapReply, valueAt, type MappedReply } from './external/mapping.js';
import { EXTERNAL_CALLS, externalOutcome } from './external/outcome.js';
import type { MethodContext, MethodOutcome, RagMethod } from './types.js';
import type { OutputsParams } from './outputsSchema.js';

interface SavedAnswer {
  line: string;
  reply: MappedReply;
}

/** The file's records with where each sits (`line 4`, `[3]`); lines that are not JSON are problems, all reported. */
function records(text: string, file: string, problems: string[]): { where: string; value: unknown }[] {
  const body = text.replace(/^\uFEFF/, '');
  if (/^\s*\[/.test(body)) {
    try {
      const list = JSON.parse(body) as unknown[];
      return list.map((value, i) => ({ where: `[${i}]`, value }));
    } catch (error) {
      problems.push(`${file}: not valid JSON (${(error as Error).message})`);
      return [];
    }
  }
  const out: { where: string; value: unknown }[] = [];
  body.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      out.push({ where: `line ${i + 1}`, value: JSON.parse(line) });
    } catch (error) {
      problems.push(`${file}: line ${i + 1}: not valid JSON (${(error as Error).message})`);
    }
  });
  return out;
}

/**
 * Saved outputs of any system (a Python pipeline, RAGAS- or RAGChecker-style records) as a
 * method: each question's answer and contexts are read from the file and scored like any
 * answer. The whole file is checked before anything runs: an unknown item, a line without an
 * answer, malformed contexts — one message per problem, naming line and field. A question the
 * file does not answer fails as not answered (counted, left out of the means), never scored 0.
 */
export function createOutputsMethod(params: OutputsParams): RagMethod {
  const answers = new Map<string, SavedAnswer>();
  let reportsContexts = false;
  const contextsPath = params.response.contexts ?? 'contexts';

  return {
    name: 'outputs',
    usesRetrieval: false,
    calls: EXTERNAL_CALLS,
    async prepare(items: BenchmarkItem[]) {
      let text: string;
      try {
        text = await readFile(params.file, 'utf8');
      } catch (error) {
        throw new DataFileError(`${params.file}: cannot read (${(error as Error).message})`);
      }
      const problems: string[] = [];
      const byKey = new Map(items.map((item) => [`${item.benchmark}:${item.id}`, item]));
      const byId = new Map<string, BenchmarkItem[]>();
      for (const item of items) byId.set(item.id, [...(byId.get(item.id) ?? []), item]);
      const firstLine = new Map<string, string>();
      for (const { where, value } of records(text, params.file, problems)) {
        const at = `${params.file}: ${where}`;
        if (!value || typeof value !== 'object' || Array.isArray(value)) {
          problems.push(`${at}: expected an object such as {"itemId": …, "answer": …}`);
          continue;
        }
        const rawId = valueAt(value, params.itemId);
        if (typeof rawId !== 'string' && typeof rawId !== 'number') {
          problems.push(`${at}: ${params.itemId}: ${rawId === undefined ? 'missing' : 'expected a string or number'} (the question's item id)`);
          continue;
        }
        const id = String(rawId);
        const matches = byKey.has(id) ? [byKey.get(id)!] : (byId.get(id) ?? []);
        if (matches.length !== 1) {
          if (matches.length === 0 && params.unknownItems === 'ignore') continue;
          problems.push(
            matches.length === 0
              ? `${at}: ${params.itemId}: unknown item "${id}" (not among the run's ${items.length} questions; unknownItems: ignore skips such lines)`
              : `${at}: ${params.itemId}: "${id}" is in several benchmarks (${matches.map((m) => m.benchmark).join(', ')}); write <benchmark>:<id>`,
          );
          continue;
        }
        const item = matches[0]!;
        const key = `${item.benchmark}:${item.id}`;
        if (firstLine.has(key)) {
          problems.push(`${at}: ${params.itemId}: "${id}" was answered already on ${firstLine.get(key)}`);
          continue;
        }
        firstLine.set(key, where);
        const mapped = mapReply(value, params.response, item, { defaultAnswer: 'answer', defaultContexts: contextsPath, idPrefix: 'outputs' });
        problems.push(...describeProblems(at, mapped.problems));
        if (mapped.reply) answers.set(key, { line: where, reply: mapped.reply });
        if (valueAt(value, contextsPath) !== undefined) reportsContexts = true;
      }
      if (problems.length) {
        throw new DataFileError(`${params.file}: ${problems.length} problem${problems.length > 1 ? 's' : ''} (nothing was run):\n${problems.join('\n')}`);
      }
    },
    async run(context: MethodContext): Promise<MethodOutcome> {
      const key = `${context.item.benchmark}:${context.item.id}`;
      const saved = answers.get(key);
      if (!saved) {
        context.record('outputs', 'lookup', { file: params.file, notAnswered: true });
        throw new Error(`not answered: ${params.file} has no line for item ${context.item.id} (counted as failed, never scored)`);
      }
      context.record('outputs', 'lookup', { file: params.file, line: saved.line, contexts: saved.reply.contexts.length });
      return externalOutcome(context, saved.reply, { prompt: [], reportsContexts });
    },
  };
}
