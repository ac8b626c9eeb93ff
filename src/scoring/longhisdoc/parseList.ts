/**
 * Reads a predicted list: a JSON array, a Python-style list (`['甲', '乙']`), a bracketed
 * list without quotes (`[甲, 乙]`, `【甲、乙】`), or plain text separated by 、，, ; .
 * Returns null for empty text.
 */
export function parseListAnswer(text: string): Array<string | number> | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  const bracketed = /[[［【]([^\]］】]*)[\]］】]/.exec(trimmed);
  const candidate = bracketed ? `[${bracketed[1]}]` : null;
  for (const attempt of candidate ? [candidate, candidate.replace(/'/g, '"')] : []) {
    try {
      const value: unknown = JSON.parse(attempt);
      if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) {
        return value as Array<string | number>;
      }
    } catch {
      // not JSON: fall through to splitting
    }
  }
  const body = bracketed ? (bracketed[1] ?? '') : trimmed;
  const parts = body
    .split(/[,，、;；\n]/)
    .map((part) => part.trim().replace(/^["'“”‘’「」『』]+|["'“”‘’「」『』。.]+$/g, '').trim())
    .filter((part) => part.length > 0);
  return parts;
}
