import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Link, useSearchParams } from '../router.js';
import type { JudgeReveal, LabelPage, LabelTask, SavedMarks } from '../../labelApi.js';
import { labelsApi, labelToken } from '../api/labels.js';
import { Pending, runPath, Table, useApi, useLoad } from '../util.js';

const ANNOTATOR_NAME = /^[\p{L}\p{N}_-][\p{L}\p{N}._-]{0,63}$/u;

/** `#/run/<id>/label?annotator=<name>`: a historian marks the drawn answers, blind to the judge, from the keyboard. */
export function LabelView({ run }: { run: string }) {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const annotator = params.get('annotator') ?? '';
  if (!api.live || !labelToken()) return <p class="error">Labelling needs the live viewer (hisrag view); a bundle is read-only.</p>;
  if (!ANNOTATOR_NAME.test(annotator)) return <ChooseAnnotator run={run} onChoose={(name) => setParams({ annotator: name })} />;
  return <Annotate key={annotator} run={run} annotator={annotator} />;
}

function ChooseAnnotator({ run, onChoose }: { run: string; onChoose: (name: string) => void }) {
  const page = useLoad(() => labelsApi.page(run, ''), [run]);
  const [name, setName] = useState(() => localStorage.getItem('hisrag-annotator') ?? '');
  const choose = (value: string) => {
    localStorage.setItem('hisrag-annotator', value);
    onChoose(value);
  };
  return (
    <section class="label-page">
      <h1>Label answers <span class="meta">{run}</span></h1>
      {page.data?.annotators.length ? <p>Continue as {page.data.annotators.map((a) => <button class="annotator" onClick={() => choose(a)}>{a}</button>)}</p> : null}
      <form onSubmit={(e) => (e.preventDefault(), ANNOTATOR_NAME.test(name) && choose(name))}>
        <label>
          Your name (one label file each: labels/&lt;name&gt;.jsonl){' '}
          <input name="annotator" aria-label="annotator" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>{' '}
        <button type="submit" disabled={!ANNOTATOR_NAME.test(name)}>Start</button>
      </form>
    </section>
  );
}

type Draft = { verdicts: Record<string, 0 | 1>; correct?: 0 | 1 };
const draftOf = (saved: SavedMarks | undefined): Draft => ({ verdicts: { ...(saved?.verdicts ?? {}) }, ...(saved?.correct !== undefined ? { correct: saved.correct } : {}) });
const complete = (task: LabelTask, draft: Draft) => (task.rubric.length ? task.rubric.every((r) => r.key in draft.verdicts) : draft.correct !== undefined);

function Annotate({ run, annotator }: { run: string; annotator: string }) {
  const loaded = useLoad(() => labelsApi.page(run, annotator), [run, annotator]);
  if (!loaded.data) return <Pending state={loaded} what="Loading the sample…" />;
  if (!loaded.data.sample) return <p class="error">No sample drawn: run <code>hisrag annotate &lt;run-dir&gt; --size N</code> first.</p>;
  return <Workspace run={run} annotator={annotator} page={loaded.data} />;
}

function Workspace({ run, annotator, page }: { run: string; annotator: string; page: LabelPage }) {
  const [saved, setSaved] = useState<Record<number, SavedMarks>>(page.saved);
  const first = Math.max(0, page.tasks.findIndex((t) => !page.saved[t.index]));
  // Position, focused item and marks in one state, updated from the state itself: keys pressed faster than renders all count.
  const [at, setAt] = useState(() => ({ pos: first, item: 0, draft: draftOf(page.saved[page.tasks[first]!.index]) }));
  const task = page.tasks[at.pos]!;
  const [judge, setJudge] = useState<JudgeReveal | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef({ at, saved, task });
  latest.current = { at, saved, task };
  const isSaved = Boolean(saved[task.index]);
  useEffect(() => {
    setJudge(null);
    setError(null);
    if (saved[task.index]) labelsApi.judge(run, task.index, annotator).then(setJudge, (e: Error) => setError(e.message));
  }, [task.index]);
  const rowsOf = (t: LabelTask) => Math.max(1, t.rubric.length);
  /** Marks `at` (default: the focused item) and, from the keyboard, moves the focus on. */
  const markAt = (at: number | null, value: 0 | 1, advance: boolean) =>
    setAt((s) => {
      const t = page.tasks[s.pos]!;
      const item = at ?? s.item;
      const draft = t.rubric.length ? { ...s.draft, verdicts: { ...s.draft.verdicts, [t.rubric[item]!.key]: value } } : { ...s.draft, correct: value };
      return { ...s, draft, item: advance ? Math.min(rowsOf(t) - 1, item + 1) : item };
    });
  const focus = (by: number) => setAt((s) => ({ ...s, item: Math.min(rowsOf(page.tasks[s.pos]!) - 1, Math.max(0, s.item + by)) }));
  const move = (by: number) =>
    setAt((s) => {
      const pos = Math.min(page.tasks.length - 1, Math.max(0, s.pos + by));
      return pos === s.pos ? s : { pos, item: 0, draft: draftOf(latest.current.saved[page.tasks[pos]!.index]) };
    });
  const save = () => {
    const { at: now, task: t } = latest.current;
    if (!complete(t, now.draft)) return setError('Mark every item before saving.');
    const marks = t.rubric.length ? { verdicts: now.draft.verdicts } : { correct: now.draft.correct! };
    labelsApi.save(run, { annotator, index: t.index, ...marks }).then(
      (result) => {
        setSaved((s) => ({ ...s, [t.index]: { ...marks, score: result.label.score, at: result.label.at } }));
        if (latest.current.task.index === t.index) setJudge(result.judge);
        setError(null);
      },
      (e: Error) => setError(e.message),
    );
  };
  // A layout effect, not useEffect: Preact defers useEffect to the next frame (up to 100 ms when the
  // tab draws no frames), and keys pressed once the page shows, but before then, were lost.
  useLayoutEffect(() => {
    const actions: Record<string, () => void> = {
      j: () => focus(1),
      k: () => focus(-1),
      '1': () => markAt(null, 1, true),
      h: () => markAt(null, 1, true),
      '0': () => markAt(null, 0, true),
      m: () => markAt(null, 0, true),
      Enter: save,
      n: () => move(1),
      p: () => move(-1),
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.ctrlKey || e.metaKey || e.altKey) return;
      const action = actions[e.key];
      if (!action) return;
      e.preventDefault();
      action();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  const done = page.tasks.filter((t) => saved[t.index]).length;
  return (
    <section class="label-page">
      <h1>
        Label answers <span class="meta"><Link href={runPath(run)}>{run}</Link> · annotator <b class="annotator-name">{annotator}</b> (<Link href={runPath(run, '/label')}>change</Link>)</span>
      </h1>
      <p class="label-progress">
        answer <b>{at.pos + 1}</b> of {page.tasks.length} · <span class="labelled-count">{done}</span> labelled · keys: j/k item, 1/h hit, 0/m miss, Enter save, n/p next/previous answer
      </p>
      <progress value={done} max={page.tasks.length} />
      <TaskCard task={task} draft={at.draft} item={at.item} judge={isSaved ? judge : null} onMark={(i, v) => markAt(i, v, false)} />
      <p>
        <button class="save" onClick={save}>Save (Enter)</button> <button onClick={() => move(-1)}>Previous (p)</button> <button onClick={() => move(1)}>Next (n)</button>{' '}
        <span class="save-state">{isSaved ? `saved, score ${saved[task.index]!.score ?? '–'}` : 'not saved'}</span>
      </p>
      {error ? <p class="error">{error}</p> : null}
    </section>
  );
}

function TaskCard({ task, draft, item, judge, onMark }: { task: LabelTask; draft: Draft; item: number; judge: JudgeReveal | null; onMark: (item: number, value: 0 | 1) => void }) {
  const markText = (v: 0 | 1 | undefined) => (v === 1 ? 'hit' : v === 0 ? 'miss' : '–');
  return (
    <div class="label-task">
      <h2>Question</h2>
      <pre class="question">{task.question}</pre>
      {task.referenceAnswer ? (
        <>
          <h2>Reference answer</h2>
          <pre class="reference">{task.referenceAnswer}</pre>
        </>
      ) : null}
      <h2>Answer</h2>
      <pre class="label-answer">{task.answer}</pre>
      <h2>{task.rubric.length ? 'Rubric' : 'Is the answer correct?'}</h2>
      <Table class="rubric-marks" cols={['item', 'your mark', judge ? 'judge' : null]}>
        {(task.rubric.length ? task.rubric : [{ key: 'correct', text: 'correct (1) or incorrect (0)', weight: 100, half: 'bonus' as const, number: 1 }]).map((r, i) => {
          const mine = task.rubric.length ? draft.verdicts[r.key] : draft.correct;
          const theirs = judge ? (task.rubric.length ? judge.verdicts?.[r.key] : judge.score === null ? undefined : ((judge.score > 0 ? 1 : 0) as 0 | 1)) : undefined;
          return (
            <tr class={`rubric-item${i === item ? ' focused' : ''}`} data-key={r.key}>
              <td>
                {r.half === 'deduction' ? '减' : '加'}
                {r.number}. {r.text} <span class="meta">({r.weight > 0 ? '+' : ''}{r.weight})</span>
              </td>
              <td class="mine">
                <button class={mine === 1 ? 'active' : ''} onClick={() => onMark(i, 1)}>hit</button> <button class={mine === 0 ? 'active' : ''} onClick={() => onMark(i, 0)}>miss</button>{' '}
                <span class="mark">{markText(mine)}</span>
              </td>
              {judge ? <td class="judge-mark">{markText(theirs)}</td> : null}
            </tr>
          );
        })}
      </Table>
      {judge ? (
        <p class="judge-reveal meta">
          judge score {judge.score ?? '–'} · this answer was {judge.model} under <b>{judge.condition}</b>
        </p>
      ) : null}
    </div>
  );
}
