import { FIGURE_CONFIG, type VegaLiteSpec } from './lineFigure.js';

/** The figure's width in px: printed to PDF at 96 px per inch and scaled to the column, one px is 3.3 × 72 / 440 = 0.54 pt. */
export const COLUMN_WIDTH_PX = 440;
/** The smallest font in px that prints at ≥ 7 pt when the figure spans the column (13 px = 7.02 pt; one px to spare). */
export const COLUMN_FONT_PX = 14;

const COLUMN_CONFIG = {
  ...FIGURE_CONFIG,
  axis: { ...FIGURE_CONFIG.axis, labelFontSize: COLUMN_FONT_PX, titleFontSize: COLUMN_FONT_PX },
  legend: { ...FIGURE_CONFIG.legend, labelFontSize: COLUMN_FONT_PX },
  header: { labelFontSize: COLUMN_FONT_PX },
  text: { fontSize: COLUMN_FONT_PX },
  title: { fontSize: COLUMN_FONT_PX + 1 },
};

/** Room beside a plot for its y axis (ticks and title), px. */
const Y_AXIS_ROOM = 80;
/** Room for the condition names of a figure that lists them down its y axis, px. */
const NAME_ROOM = 170;

/** A long axis title as lines of at most `max` characters, broken after its commas (Vega draws an array as lines). */
function wrapTitle(title: unknown, max = 34): unknown {
  if (typeof title !== 'string' || title.length <= max) return title;
  const lines: string[] = [];
  for (const part of title.split(/(?<=,) /)) {
    if (lines.length && (lines.at(-1)! + ' ' + part).length <= max) lines[lines.length - 1] += ' ' + part;
    else lines.push(part);
  }
  return lines;
}

/** Each layer's encodings: the legend below the plot (the column has no room beside it), long axis titles wrapped. */
function columnLayers(layers: VegaLiteSpec[]): VegaLiteSpec[] {
  return layers.map((layer) => {
    const encoding = { ...(layer.encoding as Record<string, Record<string, unknown>> | undefined) };
    for (const channel of ['x', 'y'] as const) if (encoding[channel]) encoding[channel] = { ...encoding[channel], title: wrapTitle(encoding[channel]!.title) };
    if (encoding.color && encoding.color.legend !== null) encoding.color = { ...encoding.color, legend: { orient: 'bottom', direction: 'vertical', columns: 1, labelLimit: COLUMN_WIDTH_PX - 60 } };
    return { ...layer, encoding };
  });
}

/**
 * A figure as it is set in a paper's column: `COLUMN_WIDTH_PX` wide with text of `COLUMN_FONT_PX`, so
 * that at 3.3 in every label prints at ≥ 7 pt; panels stacked, the legend below. What the LaTeX export
 * draws; the report and the viewer keep the screen figure.
 */
export function columnFigureSpec(spec: VegaLiteSpec): VegaLiteSpec {
  const plotWidth = COLUMN_WIDTH_PX - Y_AXIS_ROOM;
  const copy = { ...spec, config: COLUMN_CONFIG, usermeta: { ...(spec.usermeta as object | undefined), fitPanels: false } } as VegaLiteSpec;
  delete copy.autosize;
  if (Array.isArray(copy.concat)) {
    copy.concat = (copy.concat as VegaLiteSpec[]).map((view) => ({ ...view, width: plotWidth, layer: columnLayers(view.layer as VegaLiteSpec[]) }));
    copy.columns = 1;
  } else if (copy.spec) {
    const inner = copy.spec as VegaLiteSpec;
    copy.columns = 2;
    copy.spec = { ...inner, width: Math.floor(plotWidth / 2) - 20, layer: columnLayers(inner.layer as VegaLiteSpec[]) };
  } else if (copy.layer) {
    copy.width = plotWidth;
    copy.layer = columnLayers(copy.layer as VegaLiteSpec[]);
  } else {
    // A figure of one mark (the help/hurt bars, conditions down the y axis): its own encodings, the legend below, room for the names.
    const [layer] = columnLayers([copy]);
    const encoding = layer!.encoding as Record<string, Record<string, unknown>>;
    const named = encoding.y?.type === 'nominal';
    if (named) encoding.y = { ...encoding.y, axis: { ...(encoding.y!.axis as object), labelLimit: NAME_ROOM } };
    copy.encoding = encoding;
    copy.width = plotWidth - (named ? NAME_ROOM - 20 : 0);
  }
  return copy;
}
