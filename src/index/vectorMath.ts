export function dot(a: ArrayLike<number>, b: ArrayLike<number>, offsetB = 0): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[offsetB + i]!;
  return sum;
}

export function norm(a: ArrayLike<number>, offset = 0, length = a.length): number {
  let sum = 0;
  for (let i = offset; i < offset + length; i++) sum += a[i]! * a[i]!;
  return Math.sqrt(sum);
}

/** Unit-length copy (zero vectors stay zero). */
export function normalized(a: ArrayLike<number>): Float32Array {
  const n = norm(a);
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = n > 0 ? a[i]! / n : 0;
  return out;
}
