/** Python's `round(x)`: to the nearest integer, ties to even (12.5 → 12, 13.5 → 14). */
export function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor; // exact for the magnitudes scores take
  if (diff < 0.5) return floor;
  if (diff > 0.5) return floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}
