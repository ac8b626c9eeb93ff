import { Link, useSearchParams } from '../router.js';
import type { AnswerDetail, PassageView } from '../../api.js';
import { Failure, fmt, Pending, runPath, Table, useApi, useLoad } from '../util.js';
import { PageImages } from './pageImages.js';

/** One answer — or two side by side (`vsRun`, `vsKey`) — with the question, reference, verdicts, passages, trace and cost. */
export function AnswerView({ run }: { run: string }) {
  const api = useApi();
  const [params] = useSearchParams();
  const key = params.get('key') ?? '';
  const vsRun = params.get('vsRun') ?? run;
  const vsKey = params.get('vsKey');
  const main = useLoad(() => api.answer(run, key), [run, key]);
  const other = useLoad(() => (vsKey ? api.answer(vsRun, vsKey) : Promise.resolve(null)), [vsRun, vsKey]);
  if (!main.data) return <Pending state={main} what="Loading answer…" />;
  const d = main.data;
  const r = d.record;
  return (
    <section class="answer-page">
      <h1>
        {r.itemId} <span class="meta">[{r.category}]</span>{' '}
        <span class="meta">
          <Link href={runPath(run)}>{run}</Link>
        </span>
      </h1>
      <h2>Question</h2>
      <pre class="question">{r.question}</pre>
      {d.item?.reference ? (
        <>
          <h2>Reference</h2>
          <pre class="reference">{d.item.reference}</pre>
        </>
      ) : null}
      {d.item?.answer ? (
        <p>
          Gold answer: <code>{d.item.answer}</code>
        </p>
      ) : null}
      {d.item?.rubrics ? (
        <details>
          <summary>Rubric</summary>
          <pre class="rubric">{d.item.rubrics}</pre>
        </details>
      ) : null}
      <p class="meta gold-note">{d.item === null ? 'The benchmark file could not be read: no reference or gold evidence.' : d.item.gold.length ? `Gold evidence: ${d.item.gold.join(', ')}` : 'The benchmark names no gold evidence for this item.'}</p>
      {vsKey ? (
        other.error ? (
          <Failure error={other.error} />
        ) : (
          <div class="side-by-side">
            {other.data ? <AnswerBody detail={other.data} side="A" /> : <p class="loading">Loading…</p>}
            <AnswerBody detail={d} side="B" />
          </div>
        )
      ) : (
        <>
          <AnswerBody detail={d} />
          <Others detail={d} />
        </>
      )}
    </section>
  );
}

function Others({ detail }: { detail: AnswerDetail }) {
  if (!detail.others.length) return null;
  return (
    <>
      <h2>The same question in the other conditions</h2>
      <Table class="others" cols={['condition', 'score', 'answer', '']}>
        {detail.others.map((o) => (
          <tr>
            <td>
              <Link href={runPath(o.run, '/answer', { key: o.key })}>{detail.others.some((x) => x.model !== detail.record.model) ? `${o.model} · ${o.condition}` : o.condition}</Link>
            </td>
            <td class="num">{o.status === 'scored' ? fmt(o.score) : <span class="failed">{o.status}</span>}</td>
            <td class="text">{o.answer}</td>
            <td>
              <Link href={runPath(o.run, '/answer', { key: detail.record.key, vsRun: o.run, vsKey: o.key })}>side by side</Link>
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}

function AnswerBody({ detail, side }: { detail: AnswerDetail; side?: string }) {
  const r = detail.record;
  const s = r.score;
  return (
    <article class="answer-body" data-side={side}>
      <h2>
        {side ? `${side}: ` : ''}
        {r.model} · {r.condition} · {s.status === 'scored' ? <span class="score">score {fmt(s.score)}</span> : <span class="failed">{s.status}</span>}
      </h2>
      {s.error || r.error ? <p class="failed">{s.error ?? r.error}</p> : null}
      {s.rule ? <p class="meta">Decided by rule: {s.rule}</p> : null}
      <h3>Answer</h3>
      <pre class="answer-text">{r.response ? r.response.text || '(empty)' : '(no response)'}</pre>
      {r.response && r.response.raw !== r.response.text ? (
        <details>
          <summary>Whole output</summary>
          <pre>{r.response.raw}</pre>
        </details>
      ) : null}
      {s.extracted !== undefined ? (
        <p>
          Extracted answer: <code>{s.extracted}</code>
        </p>
      ) : null}
      {s.verdicts ? (
        <>
          <h3>Verdicts</h3>
          <ul class="verdicts">
            {Object.entries(s.verdicts).map(([k, v]) => (
              <li class={v ? 'met' : 'unmet'}>
                {k}: {v ? '✓ met' : '✗ not met'}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <Diagnostics value={(r as { diagnostics?: unknown }).diagnostics} />
      <PageImages run={detail.run} images={detail.images ?? []} />
      <Passages passages={detail.passages} truncated={r.truncated} />
      {r.trace.length ? (
        <>
          <h3>Trace ({r.trace.length} steps)</h3>
          <Table class="trace" scroll cols={['#', 'kind', 'step', 'query / response', 'passages', 'tokens', 'ms']}>
            {r.trace.map((step) => (
              <tr class={step.error ? 'failed' : ''}>
                <td>{step.step}</td>
                <td>{step.kind}</td>
                <td>{step.label}</td>
                <td class="text">
                  {step.error ? <span class="failed">{step.error}</span> : null}
                  {step.query ? <div>query: {step.query}</div> : null}
                  {step.response ? (
                    <details>
                      <summary>{step.response.slice(0, 80)}</summary>
                      <pre>{step.response}</pre>
                    </details>
                  ) : null}
                  {step.detail ? <div class="meta">{Object.entries(step.detail).map(([k, v]) => `${k} ${v}`).join(', ')}</div> : null}
                </td>
                <td>{step.passages ? step.passages.map((p) => `#${p.rank}`).join(' ') : ''}</td>
                <td class="num">{step.usage ? `${step.usage.promptTokens} + ${step.usage.completionTokens}${step.usageEstimated ? '*' : ''}` : ''}</td>
                <td class="num">{Math.round(step.ms)}</td>
              </tr>
            ))}
          </Table>
        </>
      ) : null}
      <h3>Prompt</h3>
      {r.prompt.map((m) => (
        <details class="prompt">
          <summary>
            {m.role} ({m.content.length} characters)
          </summary>
          <pre>{m.content}</pre>
        </details>
      ))}
      <h3>Cost</h3>
      {r.cost ? (
        <p class="cost">
          {r.cost.retrievalCalls} retrieval calls · {r.cost.generationCalls} generation calls · {r.cost.promptTokens} + {r.cost.completionTokens} tokens
          {r.cost.estimatedTokens ? ' (estimated)' : ''} · {Math.round(r.cost.durationMs)} ms{r.cost.price !== undefined ? ` · price ${r.cost.price.toPrecision(3)}` : ''}
        </p>
      ) : (
        <p class="meta">{Math.round(r.durationMs)} ms (no cost recorded)</p>
      )}
    </article>
  );
}

function Passages({ passages, truncated }: { passages: PassageView[]; truncated: number }) {
  if (!passages.length) return <p class="meta">No passages retrieved.</p>;
  const inPrompt = passages.filter((p) => p.inPrompt).length;
  const gold = passages.filter((p) => p.gold).length;
  return (
    <>
      <h3>
        Passages ({passages.length} retrieved, {inPrompt} reached the prompt{truncated ? `, ${truncated} cut by the context budget` : ''}, {gold} gold)
      </h3>
      <ol class="passages">
        {passages.map((p) => (
          <li class={`passage${p.gold ? ' gold' : ''}${p.inPrompt ? ' in-prompt' : ''}`} data-gold={p.gold ? 'true' : 'false'} data-in-prompt={p.inPrompt ? 'true' : 'false'} value={p.rank}>
            <div class="passage-head">
              <b>#{p.rank}</b> {p.title}
              {p.page !== undefined ? ` p.${p.page}` : ''} <span class="meta">{p.id} · score {fmt(p.score, 3)}</span>
              {p.firstStage ? <span class="meta"> · first stage #{p.firstStage.rank}</span> : null}
              {p.gold ? <span class="badge gold-badge">gold</span> : null}
              <span class={`badge ${p.inPrompt ? 'prompt-badge' : 'cut-badge'}`}>{p.inPrompt ? 'in prompt' : 'not in prompt'}</span>
              {p.supportsGoldClaims.length ? <span class="badge support-badge">supports gold claim {p.supportsGoldClaims.join(', ')}</span> : null}
            </div>
            <div class="passage-text">{p.text}</div>
          </li>
        ))}
      </ol>
    </>
  );
}

const LABEL_CLASS: Record<string, string> = { entailment: 'met', contradiction: 'unmet', neutral: 'neutral' };

/** Claims with their labels, where the run was diagnosed (src/runFiles/diagnosis.ts RecordDiagnostics; read defensively). */
function Diagnostics({ value }: { value: unknown }) {
  if (!value || typeof value !== 'object') return null;
  const d = value as { responseClaims?: unknown; goldClaims?: unknown; labels?: { responseVsGold?: unknown; goldVsResponse?: unknown }; metrics?: unknown };
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  const labels = (v: unknown) => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : null)) : []);
  const response = list(d.responseClaims), gold = list(d.goldClaims);
  const rg = labels(d.labels?.responseVsGold), gr = labels(d.labels?.goldVsResponse);
  const metrics = d.metrics && typeof d.metrics === 'object' ? Object.entries(d.metrics as Record<string, unknown>).filter(([, v]) => typeof v === 'number') : [];
  const claims = (title: string, items: string[], ls: (string | null)[], against: string) => (
    <>
      <h4>{title}</h4>
      <ol class="claims">
        {items.map((c, i) => (
          <li class={LABEL_CLASS[ls[i] ?? ''] ?? 'unchecked'}>
            {c} <span class="badge">{ls[i] ?? 'not checked'}</span> <span class="meta">vs {against}</span>
          </li>
        ))}
      </ol>
    </>
  );
  return (
    <div class="diagnostics">
      <h3>Diagnostics</h3>
      {claims('Claims of the answer', response, rg, 'the gold answer')}
      {claims('Gold claims', gold, gr, 'the answer')}
      {metrics.length ? (
        <p class="meta">
          {metrics.map(([k, v]) => `${k} ${fmt((v as number) * 100, 1)}`).join(' · ')}
        </p>
      ) : null}
    </div>
  );
}
