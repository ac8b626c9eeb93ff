import { createHash } from 'node:crypto';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import type { VegaLiteSpec } from './lineFigure.js';

/** The width a static figure gets when its spec asks for the container's (the report's column). */
export const STATIC_WIDTH = 1000;

/**
 * A Vega-Lite spec as a static SVG string, in Node without a browser or a canvas: Vega's headless
 * SVG renderer, run synchronously (the data is inline, so nothing loads). `width: 'container'`
 * becomes `width` px for one plot, or a share of it per small multiple.
 */
export function figureSvg(spec: VegaLiteSpec, options: { width?: number; className?: string; ariaLabel?: string } = {}): string {
  const width = options.width ?? STATIC_WIDTH;
  const view = new vega.View(vega.parse(compile(withWidth(spec, width) as never).spec), { renderer: 'none' });
  view.run();
  const padding = view.padding() as { left: number; right: number; top: number; bottom: number };
  const origin = view.origin();
  // The headless SVG renderer `toSVG` uses (missing from vega's type declarations).
  const renderer = new (vega as unknown as { SVGStringRenderer: new (loader: unknown) => HeadlessSvg }).SVGStringRenderer(view.loader());
  renderer.initialize(null, viewSize(view, 'width'), viewSize(view, 'height'), [padding.left + origin[0]!, padding.top + origin[1]!]).background(view.background());
  renderer.render((view as unknown as { _scenegraph: { root: unknown } })._scenegraph.root);
  view.finalize();
  const attributes = `class="marks${options.className ? ` ${escapeAttribute(options.className)}` : ''}" role="img"${options.ariaLabel ? ` aria-label="${escapeAttribute(options.ariaLabel)}"` : ''}`;
  const svg = compact(renderer.svg());
  // Vega numbers its clip paths from 1 in every figure; a page holds many figures, so each gets ids of its own (from its content: deterministic).
  const prefix = `f${createHash('sha256').update(svg).digest('hex').slice(0, 8)}-`;
  return svg.replace(/id="clip(\d+)"/g, `id="${prefix}clip$1"`).replace(/url\(#clip(\d+)\)/g, `url(#${prefix}clip$1)`).replace('class="marks"', attributes);
}

/**
 * Vega's SVG less what only a live, interactive view uses: hidden foreground paths, empty
 * backgrounds, pointer and aria-hidden attributes, default opacities. A static figure draws the same
 * at about two thirds the size (the report embeds every figure).
 */
function compact(svg: string): string {
  // One font for the whole figure, set once on the root (inherited), not on every label.
  const fonts = [...new Set([...svg.matchAll(/ font-family="([^"]*)"/g)].map((m) => m[1]!))];
  const shared = fonts.length === 1 ? fonts[0]! : null;
  const fonted = shared === null ? svg : svg.replaceAll(` font-family="${shared}"`, '').replace('<svg ', `<svg font-family="${shared}" `);
  return fonted
    .replace(/<path class="foreground"[^>]*display="none"\/>/g, '')
    .replace(/<path class="background"[^>]*d="M0,0h0v0h0Z"[^>]*\/>/g, '')
    // Coordinates to a thousandth of a pixel (Vega writes 17 digits: 218.05714285714282).
    .replace(/="([^"]*\d\.\d{4,}[^"]*)"/g, (_, value: string) => `="${value.replace(/-?\d+\.\d{4,}/g, (n) => String(Number(Number(n).toFixed(3))))}"`)
    .replace(/ (?:aria-hidden="true"|pointer-events="none"|opacity="1"|aria-roledescription="[^"]*"|aria-label="[^"]*"|role="graphics-[a-z-]*"|stroke-width="1"|transform="translate\(0,0\)")/g, '')
    // A background with neither fill nor stroke of its own draws nothing (the root sets fill="none").
    .replace(/<path class="background" d="[^"]*"\/>/g, '');
}

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

interface HeadlessSvg {
  initialize(el: null, width: number, height: number, origin: [number, number]): HeadlessSvg;
  background(color: unknown): HeadlessSvg;
  render(scene: unknown): HeadlessSvg;
  svg(): string;
}

/** The rendered size of a view, padding included (what Vega's own `toSVG` measures). */
function viewSize(view: vega.View, side: 'width' | 'height'): number {
  const padding = view.padding() as { left: number; right: number; top: number; bottom: number };
  const inner = (view as unknown as Record<string, number>)[side === 'width' ? '_viewWidth' : '_viewHeight']!;
  return Math.max(0, inner + (side === 'width' ? padding.left + padding.right : padding.top + padding.bottom));
}

/** The spec with `width: 'container'` replaced by pixels: the whole width, or one column's share in a faceted figure. */
export function withWidth(spec: VegaLiteSpec, width: number): VegaLiteSpec {
  const copy = JSON.parse(JSON.stringify(spec)) as VegaLiteSpec;
  if (copy.width === 'container') {
    copy.width = width - 180; // room for the y axis and the legend column
    if ((copy.autosize as { type?: string } | undefined)?.type === 'fit-x') delete copy.autosize;
  }
  // Panels at their live width (`fitPanels`) share the width less the legend column; a width set for print is kept.
  const views = copy.concat as VegaLiteSpec[] | undefined;
  if (views && (copy.usermeta as { fitPanels?: boolean } | undefined)?.fitPanels) {
    const columns = Math.min(views.length, typeof copy.columns === 'number' ? copy.columns : views.length);
    for (const view of views) view.width = Math.floor((width - 180) / columns) - 70;
  }
  const inner = copy.spec as VegaLiteSpec | undefined;
  if (inner?.width === 'container') {
    const columns = typeof copy.columns === 'number' ? copy.columns : 1;
    inner.width = Math.floor((width - 60) / columns) - 50;
  }
  return copy;
}
