import { DEPTH_KIND_NAMES, NO_FACTOR, type DepthKind } from './figureModel.js';
import type { VegaLiteSpec } from './lineFigure.js';

/** What a figure draws wrongly: a line joining points that differ in a factor not on its axes, an axis mixing depth kinds, an axis title not naming its kind. */
export type FigureViolation =
  | { kind: 'series-mixes-factor'; plot: string; series: string; factor: string; values: string[] }
  | { kind: 'axis-mixes-depth-kinds'; plot: string; depthKinds: string[] }
  | { kind: 'axis-title-mismatch'; plot: string; depthKind: DepthKind; title: string }
  | { kind: 'point-without-factors'; plot: string; series: string };

interface Plot {
  name: string;
  /** The rows the plot draws as series (its panel's, or all). */
  rows: Record<string, unknown>[];
  /** The field Vega draws one line per (the colour), and the field that splits small multiples, if any. */
  lineField: string;
  facetField: string | null;
  xTitle: string;
  xField: string;
}

/** The layer that draws the lines: its colour and x encodings. */
function lineLayer(layers: VegaLiteSpec[]): { color: string; xField: string; xTitle: string } | null {
  for (const layer of layers) {
    const mark = layer.mark as string | { type?: string } | undefined;
    if ((typeof mark === 'string' ? mark : mark?.type) !== 'line') continue;
    const encoding = (layer.encoding ?? {}) as Record<string, { field?: string; title?: string } | undefined>;
    return { color: encoding.color?.field ?? '', xField: encoding.x?.field ?? '', xTitle: String(encoding.x?.title ?? '') };
  }
  return null;
}

/** The panel a `concat` view keeps: its `{ filter: { field, equal } }` transform. */
function viewFilter(view: VegaLiteSpec): { field: string; equal: unknown } | null {
  for (const t of (view.transform ?? []) as { filter?: { field?: string; equal?: unknown } }[]) if (t.filter?.field !== undefined && 'equal' in t.filter) return { field: t.filter.field, equal: t.filter.equal };
  return null;
}

/** The plots of a line figure as Vega-Lite draws them: one layered view, a facet's views, or each view of a `concat` (its own data, or the figure's less its filter). */
function plotsOf(spec: VegaLiteSpec): Plot[] {
  const values = ((spec.data as { values?: Record<string, unknown>[] } | undefined)?.values ?? []).filter((r) => r.kind === 'series');
  const views = (spec.concat ?? spec.hconcat ?? spec.vconcat) as VegaLiteSpec[] | undefined;
  if (views) {
    return views.flatMap((view, i) => {
      const line = lineLayer((view.layer ?? []) as VegaLiteSpec[]);
      if (!line) return [];
      const own = (view.data as { values?: Record<string, unknown>[] } | undefined)?.values?.filter((r) => r.kind === 'series');
      const filter = viewFilter(view);
      const rows = own ?? (filter ? values.filter((r) => r[filter.field] === filter.equal) : values);
      return [{ name: String(view.title ?? `view ${i + 1}`), rows, lineField: line.color, facetField: null, xTitle: line.xTitle, xField: line.xField }];
    });
  }
  const inner = (spec.spec ?? spec) as VegaLiteSpec;
  const line = lineLayer((inner.layer ?? []) as VegaLiteSpec[]);
  if (!line) return [];
  const facet = (spec.facet as { field?: string } | undefined)?.field ?? null;
  return [{ name: String(spec.title ?? 'figure'), rows: values, lineField: line.color, facetField: facet, xTitle: line.xTitle, xField: line.xField }];
}

const factorsOf = (row: Record<string, unknown>) => (row.factors ?? null) as Record<string, string> | null;

/** Does an axis title say its depth kind (and not another's)? */
export function titleNamesKind(title: string, kind: DepthKind): boolean {
  const others = (Object.keys(DEPTH_KIND_NAMES) as DepthKind[]).filter((k) => k !== kind);
  return title.includes(DEPTH_KIND_NAMES[kind]) && others.every((k) => !title.includes(DEPTH_KIND_NAMES[k]));
}

/**
 * Every violation of the figure model in a figure's Vega-Lite spec (as saved in `figures/*.vl.json`),
 * read from what Vega draws: rows grouped into lines by the line layer's colour field (and the facet's
 * or the `concat` view's panel). A line must be constant in every factor its points carry except the
 * one its x axis is; a plot's points must be of one depth kind (`–`, no depth, goes anywhere); the x
 * title of a plot of one depth kind must name it. Rows of a line figure without factors (a chart not
 * built from a run's conditions) are reported when others carry them. Empty: the figure is sound.
 */
export function figureViolations(spec: VegaLiteSpec): FigureViolation[] {
  const out: FigureViolation[] = [];
  for (const plot of plotsOf(spec)) {
    const lines = new Map<string, Record<string, unknown>[]>();
    for (const row of plot.rows) {
      const key = `${plot.facetField ? String(row[plot.facetField]) : ''}\u0000${String(row[plot.lineField])}`;
      lines.set(key, [...(lines.get(key) ?? []), row]);
    }
    const anyFactors = plot.rows.some((r) => factorsOf(r) !== null);
    for (const rows of lines.values()) {
      const series = String(rows[0]![plot.lineField]);
      if (anyFactors && rows.some((r) => factorsOf(r) === null)) out.push({ kind: 'point-without-factors', plot: plot.name, series });
      const names = new Set(rows.flatMap((r) => Object.keys(factorsOf(r) ?? {})));
      for (const factor of names) {
        if (factor === plot.xField) continue;
        const values = [...new Set(rows.map((r) => factorsOf(r)?.[factor] ?? NO_FACTOR))];
        if (values.length > 1) out.push({ kind: 'series-mixes-factor', plot: plot.name, series, factor, values });
      }
    }
    const kinds = [...new Set(plot.rows.map((r) => factorsOf(r)?.depthKind).filter((k): k is string => k !== undefined && k !== NO_FACTOR))];
    if (kinds.length > 1) out.push({ kind: 'axis-mixes-depth-kinds', plot: plot.name, depthKinds: kinds });
    else if (kinds.length === 1 && kinds[0]! in DEPTH_KIND_NAMES && !titleNamesKind(plot.xTitle, kinds[0] as DepthKind)) {
      out.push({ kind: 'axis-title-mismatch', plot: plot.name, depthKind: kinds[0] as DepthKind, title: plot.xTitle });
    }
  }
  return out;
}
