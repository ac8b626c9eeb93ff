import pLimit from 'p-limit';
import type { ExperimentConfig } from '../config/experiment.js';
import { InputError } from '../errors.js';
import { answerTask } from '../experiment/answerTask.js';
import type { Condition } from '../experiment/plan.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { runFile } from '../runFiles/runDir.js';
import type { Stages } from '../experiment/stages.js';
import type { Task, TaskContext } from '../experiment/taskContext.js';
import { JsonlAppender } from '../io/jsonl.js';
import { createProgress } from '../progress/progress.js';

export interface AnsweringInput {
  runDir: string;
  config: ExperimentConfig;
  stages: Stages;
  conditions: Condition[];
  tasks: Task[];
  context: TaskContext;
  /** Records already in items.jsonl, and the keys of those not answered again. */
  existing: RunItemRecord[];
  done: Set<string>;
  /** Answers per question and condition (the models' samples together). */
  answersPerItem: number;
  signal?: AbortSignal;
  progress: boolean;
}

/** How answering ended: how many answers this invocation added, and what stopped it early, if anything. */
export interface AnsweringOutcome {
  answered: number;
  /** Bad input, an endpoint that is down, or a method that cannot work with a model: the run stops and reports it. */
  fatal?: unknown;
  /** `execution.maxFailures` was reached. */
  stopReason?: string;
}

/**
 * Answers the tasks `execution.concurrency` at a time, appending each record to items.jsonl as it
 * finishes (appends are serialised so lines never interleave). Nothing new starts once the user
 * interrupted, the failure limit was reached or a fatal error stopped the run; the answers in
 * flight finish and are kept.
 */
export async function answerTasks(input: AnsweringInput): Promise<AnsweringOutcome> {
  const { config, stages, context, signal } = input;
  const perCondition = conditionProgress(input);
  const progress = createProgress({ label: 'answers', total: input.tasks.length, silent: !input.progress });
  const appender = await JsonlAppender.open(runFile(input.runDir, 'items'));
  let appendChain: Promise<void> = Promise.resolve();
  const append = (record: RunItemRecord) => (appendChain = appendChain.then(() => appender.append([record])));
  const outcome: AnsweringOutcome = { answered: 0 };
  let failures = 0;
  // Set when nothing new may start. Queued tasks see it and return at once (clearing p-limit's
  // queue instead would leave their promises pending).
  let stopScheduling = false;
  const userStopped = () => signal?.aborted === true;
  const onAbort = () => {
    stopScheduling = true;
  };
  signal?.addEventListener('abort', onAbort, { once: true });

  const runTask = async (task: Task): Promise<void> => {
    if (stopScheduling) return;
    const answer = await answerTask(task, stages, context, config, userStopped);
    if (!answer) return;
    const { record, stopsRun } = answer;
    // Everything that finished is kept, also after a stop was requested.
    await append(record);
    if (stopsRun) {
      // Every other item would fail the same way: stop now.
      stopScheduling = true;
      outcome.fatal ??= new InputError(`${task.model.label} · ${task.condition.name} · ${task.item.id}: ${record.error}`);
    }
    outcome.answered++;
    const pc = perCondition.get(task.condition.name)!;
    pc.done++;
    if (record.score.status !== 'scored') failures++;
    progress.tick(1, { failed: failures, [task.condition.name]: `${pc.done}/${pc.total}` });
    if (config.execution.maxFailures > 0 && failures >= config.execution.maxFailures && !stopScheduling) {
      outcome.stopReason = `stopped after ${failures} failed answers (execution.maxFailures: ${config.execution.maxFailures}); the answers in flight were kept`;
      stopScheduling = true;
    }
  };

  const limit = pLimit(config.execution.concurrency);
  try {
    await Promise.allSettled(
      input.tasks.map((task) =>
        limit(() =>
          runTask(task).catch((error) => {
            outcome.fatal ??= error;
            stopScheduling = true;
            throw error;
          }),
        ),
      ),
    );
  } finally {
    await appendChain;
    await appender.close();
    progress.stop();
    signal?.removeEventListener('abort', onAbort);
  }
  return outcome;
}

/** Answers done and due per condition, counting the records already kept. */
function conditionProgress(input: AnsweringInput): Map<string, { done: number; total: number }> {
  const perCondition = new Map<string, { done: number; total: number }>();
  for (const c of input.conditions) perCondition.set(c.name, { done: 0, total: input.stages.items.length * input.answersPerItem });
  for (const r of input.existing) {
    const pc = perCondition.get(r.condition);
    if (pc && input.done.has(r.key)) pc.done++;
  }
  return perCondition;
}
