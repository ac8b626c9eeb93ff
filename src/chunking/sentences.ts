/** A sentence (or a sentence-less line) of a document, and whether it opens a paragraph. */
export interface Sentence {
  text: string;
  paragraphStart: boolean;
}

// A sentence ends at Chinese (or Latin-followed-by-space) end punctuation, keeping any closing
// quotes or brackets that follow it: 「……。」 stays one sentence.
const SENTENCE = /[^。！？；…!?;]*(?:[。！？；!?;]+|…+|$)[」』”’）)》〉】\]"']*/gu;

/**
 * Splits text into sentences at 。！？；… (and ! ? ;), with every line break starting a new
 * paragraph. Whitespace-only pieces are dropped; the concatenation of a paragraph's sentences is
 * the paragraph with its surrounding whitespace trimmed.
 */
export function splitSentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  for (const line of text.split(/\r?\n/)) {
    const paragraph = line.trim();
    if (!paragraph) continue;
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
      out.push({ text: sentence, paragraphStart: first });
      first = false;
    }
  }
  return out;
}
