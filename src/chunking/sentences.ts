/** A sentence (or a sentence-less line) of a document, and whether it opens a paragraph. */
export interface Sentence {
  text: string;
  paragraphStart: boolean;
  /** Where `text` starts in the text it was split from (UTF-16 offset): `source.slice(at, at + text.length) === text`. */
  at: number;
}

// A sentence ends at Chinese (or Latin-followed-by-space) end punctuation, keeping any closing
// quotes or brackets that follow it: 「……。」 stays one sentence.
const SENTENCE = /[^。！？；…!?;]*(?:[。！？；!?;]+|…+|$)[」』”’）)》〉】\]"']*/gu;

/**
 * Splits text into sentences at 。！？；… (and ! ? ;), with every line break starting a new
 * paragraph. Whitespace-only pieces are dropped; the concatenation of a paragraph's sentences is
 * the paragraph with its surrounding whitespace trimmed. Each sentence is a verbatim slice of the text.
 */
export function splitSentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  let lineAt = 0;
  for (const line of text.split(/(?<=\n)/)) {
    const lineStart = lineAt;
    lineAt += line.length;
    const paragraph = line.trim();
    if (!paragraph) continue;
    const paragraphAt = lineStart + (line.length - line.trimStart().length);
    let first = true;
    for (const match of paragraph.matchAll(SENTENCE)) {
      const sentence = match[0];
      if (!sentence) continue;
      if (!sentence.trim()) {
        // Whitespace between sentences belongs to the previous one (keeps Latin spacing).
        const last = out[out.length - 1];
        if (last && !first) last.text += sentence;
        continue;
      }
      out.push({ text: sentence, paragraphStart: first, at: paragraphAt + match.index! });
      first = false;
    }
  }
  return out;
}
