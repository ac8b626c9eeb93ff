import { useEffect, useRef } from 'preact/hooks';
import embed from 'vega-embed';
import { expressionInterpreter } from 'vega-interpreter';

/**
 * A figure of the project's one chart grammar (`src/figures/`), interactive: the same Vega-Lite spec
 * the report renders to static SVG, embedded with hover tooltips (value and interval), legend
 * clicks that hide a series and wheel/drag zoom. Vega's expressions run through its interpreter,
 * since the viewer's Content-Security-Policy forbids eval.
 */
export function Figure({ spec, label }: { spec: Record<string, unknown>; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const shown = embed(host.current, spec as never, { actions: false, ast: true, expr: expressionInterpreter, renderer: 'svg' });
    return () => void shown.then((result) => result.finalize()).catch(() => undefined);
  }, [spec]);
  // vega-embed takes over the element it is given (its class, aria-label): a div inside the figure.
  return (
    <figure class="chart" aria-label={label}>
      <div ref={host} />
    </figure>
  );
}
