/** Chinese text metrics work on characters: every non-whitespace code point is a token. */
export function characterTokens(text: string): string[] {
  return [...text].filter((ch) => !/\s/.test(ch));
}
