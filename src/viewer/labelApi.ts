/** The annotation page's API (live server only): the JSON of `/api/runs/<id>/labels` and `…/judge`. Types only. */
import type { AnswerLabel, LabelSample } from '../runFiles/labels.js';

/** The header every label write carries: the token the server put in its page at this start. */
export const LABEL_TOKEN_HEADER = 'X-Hisrag-Label-Token';
/** The page's `<meta name=…>` that holds the token. */
export const LABEL_TOKEN_META = 'hisrag-label-token';

/**
 * One answer to label, as the annotator sees it: no condition, no model, no judge verdicts, not even
 * the record key (which names the condition): answers are named by their place in the sample (blind).
 */
export interface LabelTask {
  /** Position in the sample's `keys`. */
  index: number;
  itemKey: string;
  question: string;
  referenceAnswer: string | null;
  /** The rubric's items (`key`: the verdict key); empty when the answer is marked correct/incorrect as a whole. */
  rubric: Array<{ key: string; half: 'bonus' | 'deduction'; number: number; text: string; weight: number }>;
  answer: string;
}

/** `GET /api/runs/<id>/labels?annotator=<name>`. */
export interface LabelPage {
  /** The draw, without the condition names (blind); null when `hisrag annotate` has not drawn one. */
  sample: Pick<LabelSample, 'drawnAt' | 'seed' | 'size'> & { conditions: number } | null;
  annotators: string[];
  tasks: LabelTask[];
  /** This annotator's saved marks (latest per answer), by task index. */
  saved: Record<number, SavedMarks>;
}

/** An annotator's saved marks for one answer, without what would unblind them. */
export type SavedMarks = Pick<AnswerLabel, 'verdicts' | 'correct' | 'note' | 'score' | 'at'>;

/** `POST /api/runs/<id>/labels`'s body. */
export type LabelWrite = Pick<AnswerLabel, 'annotator' | 'verdicts' | 'correct' | 'note'> & {
  /** The task's index in the sample. */
  index: number;
};

/** What a saved label reveals: the judge's marks and score for the same answer (shown only after the annotator's own are saved). */
export interface JudgeReveal {
  key: string;
  condition: string;
  model: string;
  verdicts: Record<string, 0 | 1> | null;
  score: number | null;
}

/** `POST /api/runs/<id>/labels`'s answer. */
export interface LabelSaved {
  label: AnswerLabel;
  judge: JudgeReveal;
}
