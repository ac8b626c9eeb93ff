import * as OpenCC from 'opencc-js';

// opencc-js builds its dictionaries on first use; keep one converter per process.
let converter: ((text: string) => string) | undefined;

/** Traditional → simplified Chinese (OpenCC `t` → `cn`). */
export function toSimplified(text: string): string {
  const convert = (converter ??= OpenCC.Converter({ from: 't', to: 'cn' }));
  return convert(text);
}
