/**
 * Levenshtein distance over Unicode code points. Hand-written because the popular JS
 * implementations count UTF-16 code units, which would count CJK Extension B characters
 * (𣈆, 𡊮 — common in historical texts) twice and disagree with the reference scorer.
 */
export function levenshtein(a: string, b: string): number {
  let s = [...a];
  let t = [...b];
  if (s.length > t.length) [s, t] = [t, s];
  if (s.length === 0) return t.length;
  let previous = Array.from({ length: s.length + 1 }, (_, i) => i);
  for (let j = 0; j < t.length; j++) {
    const current = [j + 1];
    for (let i = 0; i < s.length; i++) {
      const cost = s[i] === t[j] ? 0 : 1;
      current.push(Math.min(previous[i]! + cost, previous[i + 1]! + 1, current[i]! + 1));
    }
    previous = current;
  }
  return previous[s.length]!;
}

/** Length in code points, as Python's `len` counts. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
