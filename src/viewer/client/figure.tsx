import { useEffect, useRef } from 'preact/hooks';
import embed from 'vega-embed';
import { expressionInterpreter } from 'vega-interpreter';

/**
 * A figure of the project's one chart grammar (`src/figures/`), the report's Vega-Lite spec embedded
 * interactively; its expressions run through Vega's interpreter, since the viewer's CSP forbids eval.
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
