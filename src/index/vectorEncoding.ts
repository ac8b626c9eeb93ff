/**
 * How stored vectors are laid out in BLOBs: f32 (4 bytes a dimension, exact); f16 (2 bytes, relative
 * error ≤ 2⁻¹¹); i8 (a float32 step = max |x| / 127, then 1 byte a dimension). Node 20 has no
 * Float16Array, so half floats are converted here.
 */
export type VectorEncoding = 'f32' | 'f16' | 'i8';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 → IEEE half bits, round to nearest even; overflow → ±Infinity, tiny values → subnormals/zero. */
export function toHalf(value: number): number {
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    let half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && half & 1)) half++;
    return sign | half;
  }
  let half = sign | (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return half;
}

let halfTable: Float32Array | undefined;
function halfToFloatTable(): Float32Array {
  if (halfTable) return halfTable;
  const table = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >>> 10) & 0x1f;
    const mantissa = h & 0x3ff;
    table[h] =
      exponent === 0
        ? sign * mantissa * 2 ** -24
        : exponent === 0x1f
          ? mantissa
            ? NaN
            : sign * Infinity
          : sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
  }
  return (halfTable = table);
}

export function bytesPerVector(encoding: VectorEncoding, dimension: number): number {
  return encoding === 'f32' ? 4 * dimension : encoding === 'f16' ? 2 * dimension : 4 + dimension;
}

export function encodeVector(vector: ArrayLike<number>, encoding: VectorEncoding): Buffer {
  const d = vector.length;
  if (encoding === 'f32') {
    const v = Float32Array.from(vector);
    return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  }
  if (encoding === 'f16') {
    const out = new Uint16Array(d);
    for (let i = 0; i < d; i++) out[i] = toHalf(vector[i]!);
    return Buffer.from(out.buffer);
  }
  let max = 0;
  for (let i = 0; i < d; i++) max = Math.max(max, Math.abs(vector[i]!));
  const step = max > 0 ? max / 127 : 1;
  const out = Buffer.alloc(4 + d);
  out.writeFloatLE(step, 0);
  const bytes = new Int8Array(out.buffer, out.byteOffset + 4, d);
  for (let i = 0; i < d; i++) bytes[i] = Math.max(-127, Math.min(127, Math.round(vector[i]! / step)));
  return out;
}

/** Decodes a stored BLOB into `out` at `offset` (dimension = `out` floats to fill). */
export function decodeVectorInto(blob: Buffer, encoding: VectorEncoding, dimension: number, out: Float32Array, offset = 0): void {
  if (blob.byteLength !== bytesPerVector(encoding, dimension)) {
    throw new Error(`stored vector of ${blob.byteLength} bytes, expected ${bytesPerVector(encoding, dimension)} (${encoding}, ${dimension} dimensions)`);
  }
  if (encoding === 'f32') {
    if (blob.byteOffset % 4 === 0) out.set(new Float32Array(blob.buffer, blob.byteOffset, dimension), offset);
    else for (let i = 0; i < dimension; i++) out[offset + i] = blob.readFloatLE(4 * i);
    return;
  }
  if (encoding === 'f16') {
    const table = halfToFloatTable();
    for (let i = 0; i < dimension; i++) out[offset + i] = table[blob[2 * i]! | (blob[2 * i + 1]! << 8)]!;
    return;
  }
  const step = blob.readFloatLE(0);
  const bytes = new Int8Array(blob.buffer, blob.byteOffset + 4, dimension);
  for (let i = 0; i < dimension; i++) out[offset + i] = bytes[i]! * step;
}

/** Dimension of a stored BLOB under `encoding`. */
export function dimensionOf(blob: Buffer, encoding: VectorEncoding): number {
  return encoding === 'f32' ? blob.byteLength / 4 : encoding === 'f16' ? blob.byteLength / 2 : blob.byteLength - 4;
}

/**
 * Dot product of `query` with a stored BLOB without decoding it first (re-ranking reads a few hundred
 * vectors per query; decoding each into floats cost as much as the products). `normSquared` only on request.
 */
export function dotStored(blob: Buffer, encoding: VectorEncoding, query: Float32Array, withNorm = false): { dot: number; normSquared: number } {
  const d = query.length;
  let dot = 0;
  let normSquared = 0;
  if (encoding === 'i8') {
    const step = blob.readFloatLE(0);
    const bytes = new Int8Array(blob.buffer, blob.byteOffset + 4, d);
    for (let i = 0; i < d; i++) dot += query[i]! * bytes[i]!;
    if (withNorm) for (let i = 0; i < d; i++) normSquared += bytes[i]! * bytes[i]!;
    return { dot: dot * step, normSquared: normSquared * step * step };
  }
  const row = new Float32Array(d);
  decodeVectorInto(blob, encoding, d, row);
  for (let i = 0; i < d; i++) dot += query[i]! * row[i]!;
  if (withNorm) for (let i = 0; i < d; i++) normSquared += row[i]! * row[i]!;
  return { dot, normSquared };
}
