import { createTraditionalToSimplified } from './fastConverter.js';

// The converter builds its tables on first use; keep one per process (and per worker thread).
let converter: ((text: string) => string) | undefined;

/** Traditional → simplified Chinese (OpenCC `t` → `cn`, opencc-js's dictionaries; see fastConverter.ts). */
export function toSimplified(text: string): string {
  const convert = (converter ??= createTraditionalToSimplified());
  return convert(text);
}
