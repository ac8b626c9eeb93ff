import { stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { LabelTarget } from '../app/labelExchange.js';
import type { ExperimentConfig } from '../config/experiment.js';
import { formatZodIssues } from '../errors.js';
import { HttpError, readJson } from '../models/modelServer.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';
import { appendLabels, labelFile, labelSampleFile, listAnnotators, readLabels, readLabelSample } from '../runFiles/labelFiles.js';
import { AnnotatorSchema, AnswerLabelSchema, type LabelSample } from '../runFiles/labels.js';
import { runFile } from '../runFiles/runDir.js';
import { z } from 'zod';
import { LABEL_TOKEN_HEADER, type JudgeReveal, type LabelPage, type LabelSaved, type LabelTask, type SavedMarks } from './labelApi.js';

/** What labelling a run needs, read once per draw and per change of items.jsonl. */
interface LabelContext {
  stamp: string;
  config: ExperimentConfig;
  sample: LabelSample | null;
  records: Map<string, RunItemRecord>;
  targets: Map<string, LabelTarget>;
}

/**
 * Labelling reads the run's config through the experiment schema and the benchmark registry (every
 * registered component's module): imported with the first label request, not when the viewer starts.
 */
const labelModules = async () => {
  const [exchange, sample] = await Promise.all([import('../app/labelExchange.js'), import('../app/labelSample.js')]);
  return { ...exchange, readRunForLabels: sample.readRunForLabels };
};
let labelCode: ReturnType<typeof labelModules> | null = null;
const labelsCode = () => (labelCode ??= labelModules());

const MAX_BODY = 64 * 1024;

/** A label write's body (`LabelWrite`): the marks as a label file holds them. */
const LabelWriteSchema = z.strictObject({
  annotator: AnnotatorSchema,
  index: z.number().int().nonnegative(),
  verdicts: AnswerLabelSchema.shape.verdicts,
  correct: AnswerLabelSchema.shape.correct,
  note: z.string().max(4000).optional(),
});

type Reply = (status: number, value: unknown) => void;

async function stampOf(dir: string): Promise<string> {
  const parts = await Promise.all([labelSampleFile(dir), runFile(dir, 'items')].map((f) => stat(f).then((s) => `${s.size}:${s.mtimeMs}`, () => '-')));
  return parts.join('|');
}

/**
 * The annotation page's routes: what to label (blind), the annotator's saved labels, the judge's
 * marks once the annotator's own are saved, and label writes — from the server's own page only
 * (its token, its Origin, a JSON body), appended through one queue per label file.
 */
export class LabelRoutes {
  private readonly contexts = new Map<string, LabelContext>();
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Per run: the refresh of its summary.json and report running now, and whether a save came in during it. */
  private readonly refreshes = new Map<string, { running: Promise<void>; again: boolean }>();

  constructor(private readonly token: string, private readonly origins: () => string[]) {}

  private async context(dir: string): Promise<LabelContext> {
    const stamp = await stampOf(dir);
    const held = this.contexts.get(dir);
    if (held?.stamp === stamp) return held;
    const { readRunForLabels, labelTargets } = await labelsCode();
    const { config, records } = await readRunForLabels(dir);
    const sample = (await readLabelSample(dir)) ?? null;
    const wanted = new Set(sample?.keys ?? []);
    const context: LabelContext = {
      stamp,
      config,
      sample,
      records: new Map(records.filter((r) => wanted.has(r.key)).map((r) => [r.key, r])),
      targets: held?.targets ?? (await labelTargets(config)),
    };
    this.contexts.set(dir, context);
    return context;
  }

  /** `GET labels?annotator=`: the sample's answers in annotation order and the annotator's saved labels. */
  async page(dir: string, annotator: string | null): Promise<LabelPage> {
    const { sample, records, targets } = await this.context(dir);
    const keys = sample?.keys ?? [];
    const tasks: LabelTask[] = keys.flatMap((key, index) => {
      const record = records.get(key);
      if (!record) return [];
      const itemKey = `${record.benchmark}:${record.itemId}`;
      const target = targets.get(itemKey);
      return [{ index, itemKey, question: record.question, referenceAnswer: target?.referenceAnswer ?? null, rubric: target?.rubric ?? [], answer: record.response?.text ?? '' }];
    });
    const saved: Record<number, SavedMarks> = {};
    if (annotator !== null && AnnotatorSchema.safeParse(annotator).success) {
      const at = new Map(keys.map((key, index) => [key, index]));
      for (const label of await readLabels(dir, annotator)) {
        const index = at.get(label.key);
        if (index === undefined) continue;
        saved[index] = { ...(label.verdicts ? { verdicts: label.verdicts } : {}), ...(label.correct !== undefined ? { correct: label.correct } : {}), ...(label.note ? { note: label.note } : {}), score: label.score, at: label.at };
      }
    }
    return { sample: sample && { drawnAt: sample.drawnAt, seed: sample.seed, size: sample.size, conditions: sample.conditions.length }, annotators: await listAnnotators(dir), tasks, saved };
  }

  private recordAt(context: LabelContext, index: number): RunItemRecord | undefined {
    const key = context.sample?.keys[index];
    return key === undefined ? undefined : context.records.get(key);
  }

  /** `GET judge?index=&annotator=`: the judge's marks, only for an answer this annotator has labelled. */
  async judge(dir: string, index: number, annotator: string, reply: Reply): Promise<void> {
    if (!AnnotatorSchema.safeParse(annotator).success) return reply(400, { error: 'annotator: not a valid name' });
    const record = this.recordAt(await this.context(dir), index);
    if (!record) return reply(404, { error: `no answer ${index} in the sample` });
    if (!(await readLabels(dir, annotator)).some((l) => l.key === record.key)) return reply(403, { error: 'the judge’s marks are shown once your own are saved' });
    reply(200, revealOf(record));
  }

  /** Why a write is refused (403/415), or null when it came from the server's own page. */
  refusal(req: IncomingMessage): { status: number; error: string } | null {
    const origin = req.headers.origin;
    if (!origin || !this.origins().includes(origin)) return { status: 403, error: 'label writes are accepted only from this viewer’s own page (Origin)' };
    if (req.headers[LABEL_TOKEN_HEADER.toLowerCase()] !== this.token) return { status: 403, error: 'label writes need the token of this viewer’s page (reload the page after a restart)' };
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return { status: 415, error: 'label writes are JSON (Content-Type: application/json)' };
    return null;
  }

  /** `POST labels`: checks the marks against the answer's rubric, scores them, appends the label. */
  async write(dir: string, req: IncomingMessage, reply: Reply): Promise<void> {
    const refused = this.refusal(req);
    if (refused) return reply(refused.status, { error: refused.error });
    let value: unknown;
    try {
      value = await readJson(req, MAX_BODY);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return reply(error.status, { error: error.status === 413 ? 'label too large' : 'not valid JSON' });
    }
    const { scoreMarks, labelOf } = await labelsCode();
    const parsed = LabelWriteSchema.safeParse(value);
    if (!parsed.success) return reply(400, { error: formatZodIssues(parsed.error) });
    const body = parsed.data;
    const context = await this.context(dir);
    const { config, targets } = context;
    const record = this.recordAt(context, body.index);
    if (!record) return reply(404, { error: `index: ${body.index} is not an answer of the drawn sample` });
    const marks = { verdicts: body.verdicts, correct: body.correct, note: body.note };
    const { score, problems } = scoreMarks(record, targets.get(`${record.benchmark}:${record.itemId}`), marks, config.scoring.compat);
    if (problems.length) return reply(400, { error: problems.join('\n') });
    const label = labelOf(record, body.annotator, marks, score, 'viewer');
    await this.enqueue(labelFile(dir, body.annotator), () => appendLabels(dir, body.annotator, [label]));
    this.refresh(dir);
    const saved: LabelSaved = { label, judge: revealOf(record) };
    reply(200, saved);
  }

  /**
   * After a save: summary.json's judge check and the files written from it (report.html, CSV) are
   * rewritten in the background, one refresh per run at a time, saves made during one folded into
   * the next; the run page says its judge check is being refreshed until summary.json is newer than
   * the labels. The annotator's reply does not wait for it.
   */
  private refresh(dir: string): void {
    const held = this.refreshes.get(dir);
    if (held) {
      held.again = true;
      return;
    }
    const entry = { running: Promise.resolve(), again: true };
    entry.running = (async () => {
      const { refreshLabelledOutputs } = await import('../app/rewriteReport.js');
      while (entry.again) {
        entry.again = false;
        try {
          await refreshLabelledOutputs(dir);
        } catch (error) {
          process.stderr.write(`label saved, but ${dir}: summary.json could not be refreshed (${(error as Error).message}); run hisrag report ${dir}\n`);
        }
      }
      this.refreshes.delete(dir);
    })();
    this.refreshes.set(dir, entry);
  }

  /** Resolves once no refresh of the run's (or, without a run, of any run's) outputs is running: a test, a clean shutdown. */
  async refreshed(dir?: string): Promise<void> {
    const running = () => [...this.refreshes].filter(([of]) => dir === undefined || of === dir).map(([, held]) => held.running);
    for (let pending = running(); pending.length; pending = running()) await Promise.all(pending);
  }

  /** Runs appends to one file one after another (one writer per file, however many tabs). */
  private enqueue(file: string, append: () => Promise<void>): Promise<void> {
    const next = (this.queues.get(file) ?? Promise.resolve()).catch(() => {}).then(append);
    this.queues.set(file, next);
    return next;
  }
}

function revealOf(record: RunItemRecord): JudgeReveal {
  return { key: record.key, condition: record.condition, model: record.model, verdicts: record.score.verdicts ?? null, score: record.score.score };
}
