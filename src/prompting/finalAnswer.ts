/**
 * The final answer of a chain-of-thought response: the text after the last marker
 * (`最终答案：`, also with an ASCII colon); the whole text when the model never wrote it.
 */
export function extractFinalAnswer(text: string, marker: string): string {
  const bare = marker.replace(/[：:]\s*$/, '');
  const pattern = new RegExp(`${bare.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*[：:]`, 'g');
  let last = -1;
  for (const match of text.matchAll(pattern)) last = (match.index ?? 0) + match[0].length;
  return last < 0 ? text.trim() : text.slice(last).trim();
}
