import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import pLimit from 'p-limit';
import { parse as parseYaml } from 'yaml';
import { answerInBatches } from '../batch/batchRounds.js';
import { InputError, InterruptedError, formatZodIssues } from '../errors.js';
import { ChatModelGenerator } from '../generation/chatModelGenerator.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { JUDGE_VERDICT_VERSION, PanelJudgeNameSchema, openJudgeVerdictLog, readJudgeVerdicts, type JudgeVerdict } from '../runFiles/judgeVerdicts.js';
import { judgeMessages } from '../scoring/judges/prompt.js';
import { judges } from '../scoring/judges/registry.js';
import { parseRubric } from '../scoring/rubric/parseRubric.js';
import { scoreItem } from '../scoring/scoreItem.js';
import { estimateTokens } from '../text/tokenCounter.js';
import { benchmarkItemsOf, readRunForLabels } from './labelSample.js';

type JudgeSpec = { name: string } & Record<string, unknown>;

/** `--judge`: a judge's name (`lexical`), a spec as JSON (`{"name":"llm",…}`), or a YAML/JSON file holding one (a config's `judge:` block). */
export async function judgeSpecOf(text: string): Promise<JudgeSpec> {
  let value: unknown;
  if (/\.(ya?ml|json)$/i.test(text)) {
    if (!existsSync(text)) throw new InputError(`--judge: ${text}: no such file`);
    const parsed = parseYaml(await readFile(text, 'utf8')) as unknown;
    // A whole experiment config (a judge spec has no `judge` field): its judge block.
    value = parsed && typeof parsed === 'object' && 'judge' in parsed ? (parsed as { judge: unknown }).judge : parsed;
  } else if (text.trim().startsWith('{')) {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new InputError(`--judge: not valid JSON (${(error as Error).message})`);
    }
  } else value = { name: text };
  if (!value || typeof value !== 'object' || typeof (value as { name?: unknown }).name !== 'string') throw new InputError('--judge: expected a judge name, a { name, …params } spec, or a file holding one');
  const spec = value as JudgeSpec;
  judges.parse(spec, '--judge');
  return spec;
}

export interface RejudgeOptions {
  /** `--judge`: name, JSON spec or file. */
  judge: string;
  /** The panel judge's name (its file `judges/<as>.jsonl`); default the judge's name. */
  as?: string;
  dryRun?: boolean;
  concurrency?: number;
  log: (line: string) => void;
  signal?: AbortSignal;
}

export interface RejudgeResult {
  runDir: string;
  name: string;
  /** Rubric answers this judge had not scored yet (judged now, unless a dry run). */
  toJudge: number;
  alreadyJudged: number;
  /** Judge calls the answers need (an LLM judge: one per answer that reaches it; offline judges none). */
  judgeCalls: number;
  promptTokens: number;
  judged: number;
}

/**
 * `hisrag rejudge`: the run's rubric answers scored again by another judge through the run's own
 * scorer (its rules, the judge's cache, batch rounds), into `judges/<name>.jsonl`; resumable.
 */
export async function rejudgeRun(dir: string, options: RejudgeOptions): Promise<RejudgeResult> {
  const { runDir, config, records } = await readRunForLabels(dir);
  const spec = await judgeSpecOf(options.judge);
  const nameCheck = PanelJudgeNameSchema.safeParse(options.as ?? spec.name);
  if (!nameCheck.success) throw new InputError(`--as: ${formatZodIssues(nameCheck.error)}`);
  const name = nameCheck.data;
  const items = await benchmarkItemsOf(config);
  const done = new Set((await readJudgeVerdicts(runDir, name)).map((v) => v.key));
  const answered = records.filter((r) => r.kind === 'rubric' && r.score.status !== 'generation_failed' && r.response && items.has(`${r.benchmark}:${r.itemId}`));
  const todo = answered.filter((r) => !done.has(r.key));
  const itemOf = (r: RunItemRecord) => items.get(`${r.benchmark}:${r.itemId}`)!;
  // What the judge is asked: answers the rules do not decide (empty, over-length) reach it.
  const reaching = todo.filter((r) => r.response!.text.trim() !== '' && !['empty-answer', 'over-length'].includes(r.score.rule ?? ''));
  const calls = spec.name === 'llm' ? reaching.length : 0;
  const promptTokens = calls
    ? reaching.reduce((sum, r) => {
        const item = itemOf(r);
        const messages = judgeMessages({ question: item.question, answer: r.response!.text, rubricText: item.rubrics ?? '', rubricItems: parseRubric(item.rubrics ?? '', { compat: config.scoring.compat }) });
        return sum + estimateTokens(messages.map((m) => m.content).join('\n'));
      }, 0)
    : 0;
  const judge = await judges.create(spec, undefined, '--judge');
  options.log(`rejudge ${basename(runDir)}: ${todo.length} rubric answer(s) to judge with ${name} (${judge.name}, ${judge.model}); ${answered.length - todo.length} already in judges/${name}.jsonl`);
  options.log(`judge calls: ${calls}${calls ? ` (about ${promptTokens} prompt tokens, cjk-estimate; cached answers cost nothing)` : ' (an offline judge)'}`);
  const result = { runDir, name, toJudge: todo.length, alreadyJudged: answered.length - todo.length, judgeCalls: calls, promptTokens, judged: 0 };
  if (options.dryRun || todo.length === 0) return result;

  const score = (r: RunItemRecord) => scoreItem(itemOf(r), r.response!.text, { judge, compat: config.scoring.compat, textMetrics: false });
  const queue = judge.generator instanceof ChatModelGenerator ? judge.generator.batchQueue : undefined;
  if (queue?.enabled) {
    await answerInBatches({
      queues: [queue],
      runDir,
      log: options.log,
      ...(options.signal ? { signal: options.signal } : {}),
      collect: async () => {
        await Promise.all(todo.map((r) => score(r).catch(() => undefined)));
      },
    });
  }
  const log = await openJudgeVerdictLog(runDir, name);
  const limit = pLimit(options.concurrency ?? config.execution.concurrency);
  let writing: Promise<void> = Promise.resolve();
  // The first failure (an endpoint that stays down) stops the rest; what was judged stays in the file.
  let failure: unknown;
  try {
    await Promise.all(
      todo.map((r) =>
        limit(async () => {
          if (failure !== undefined || options.signal?.aborted) return;
          try {
            const line: JudgeVerdict = { version: JUDGE_VERDICT_VERSION, key: r.key, judge: name, implementation: judge.name, model: judge.model, score: await score(r), at: new Date().toISOString() };
            writing = writing.then(() => log.append([line]));
            await writing;
            result.judged++;
          } catch (error) {
            failure ??= error;
          }
        }),
      ),
    );
  } finally {
    await writing.catch(() => {});
    await log.close();
  }
  if (failure !== undefined) throw failure;
  if (result.judged < todo.length) throw new InterruptedError(`rejudge stopped after ${result.judged} of ${todo.length} answers; run it again to go on (judges/${name}.jsonl keeps them)`);
  options.log(`judged ${result.judged} answer(s): ${runDir}/judges/${name}.jsonl`);
  return result;
}
