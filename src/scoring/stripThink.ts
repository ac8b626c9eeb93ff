/** Drops everything up to and including the last `</think>`, as the reference scorer does. */
export function stripThink(text: string): string {
  const at = text.lastIndexOf('</think>');
  return at === -1 ? text : text.slice(at + '</think>'.length);
}
