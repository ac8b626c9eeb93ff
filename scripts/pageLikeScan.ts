import sharp from 'sharp';

/**
 * A page-like scan as JPEG bytes, made without fonts: a paper ground with a little grain, a frame,
 * and vertical columns of glyph-sized ink strokes (right to left), different per `seed`. Real
 * detail, so that it does not compress to nothing and resizing it costs what a scan costs. Used by
 * scripts/bench-image-preparation.ts and the generation tests.
 */
export async function pageLikeScan(width: number, height: number, seed: number, quality = 85): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height);
  let state = (seed * 2654435761) >>> 0 || 1;
  const random = () => {
    // xorshift32: deterministic, fast enough for millions of pixels.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  for (let i = 0; i < pixels.length; i++) pixels[i] = 225 + Math.floor(random() * 20);
  const ink = (x0: number, y0: number, w: number, h: number) => {
    for (let y = Math.max(0, y0); y < Math.min(height, y0 + h); y++) {
      for (let x = Math.max(0, x0); x < Math.min(width, x0 + w); x++) pixels[y * width + x] = 20 + Math.floor(random() * 40);
    }
  };
  const margin = Math.round(width * 0.06);
  const frame = Math.max(2, Math.round(width / 300));
  ink(margin, margin, width - 2 * margin, frame);
  ink(margin, height - margin, width - 2 * margin, frame);
  ink(margin, margin, frame, height - 2 * margin);
  ink(width - margin, margin, frame, height - 2 * margin);
  const cell = Math.max(8, Math.round(width / 16));
  for (let column = width - margin - cell; column > margin + cell / 2; column -= cell) {
    const length = 0.4 + random() * 0.6;
    for (let y = margin + cell / 2; y < margin + (height - 2 * margin) * length - cell; y += cell) {
      // A glyph: a few horizontal and vertical strokes inside its cell.
      const strokes = 3 + Math.floor(random() * 5);
      for (let s = 0; s < strokes; s++) {
        const horizontal = random() < 0.5;
        const x = Math.round(column + random() * cell * 0.5);
        const top = Math.round(y + random() * cell * 0.5);
        const thick = Math.max(1, Math.round(cell / 14));
        if (horizontal) ink(x, top, Math.round(cell * (0.3 + random() * 0.4)), thick);
        else ink(x, top, thick, Math.round(cell * (0.3 + random() * 0.4)));
      }
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 1 } }).toColourspace('srgb').jpeg({ quality }).toBuffer();
}
