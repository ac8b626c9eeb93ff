/** The tick labels of each axis of a figure rendered by Vega (`src/figures/render.ts`), in drawing order: the x axis first. */
export function axisLabels(svg: string): string[][] {
  return svg
    .split('role-axis-label')
    .slice(1)
    .map((group) => [...group.slice(0, group.indexOf('</g>')).matchAll(/>([^<>]+)<\/text>/g)].map((m) => m[1]!));
}
