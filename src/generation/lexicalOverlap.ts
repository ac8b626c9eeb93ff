/**
 * The lexical machinery of the offline stand-in LLM (`extractive`): character bigrams, sentence
 * ranking by overlap with a query, and picking sentences within a length budget. Overlap is
 * counted in distinct character bigrams, which needs no tokenizer and works on classical text.
 */

const SENTENCE_END = /(?<=[。！？；!?;\n])/;
const NOT_WORD = /[\s\p{P}\p{S}]/u;

/** Distinct character bigrams of the text, ignoring whitespace, punctuation and symbols. */
export function characterBigrams(text: string): Set<string> {
  const chars = [...text].filter((c) => !NOT_WORD.test(c));
  const grams = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) grams.add(chars[i]! + chars[i + 1]!);
  return grams;
}

/** Bigrams of `text` that are also in `query`. */
export function sharedBigrams(text: string, query: ReadonlySet<string>): number {
  let shared = 0;
  for (const gram of characterBigrams(text)) if (query.has(gram)) shared++;
  return shared;
}

export function splitIntoSentences(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .map((piece) => piece.trim())
    .filter(Boolean);
}

export interface RankedSentence {
  sentence: string;
  overlap: number;
  /** Position among all sentences of the texts, in order. */
  order: number;
}

/** Sentences of the texts sharing at least `minOverlap` bigrams with the query, most shared first (ties: earlier first). */
export function rankSentences(texts: string[], query: ReadonlySet<string>, minOverlap: number, normalise: (text: string) => string): RankedSentence[] {
  const ranked: RankedSentence[] = [];
  let order = 0;
  for (const text of texts) {
    for (const sentence of splitIntoSentences(text)) ranked.push({ sentence, overlap: sharedBigrams(normalise(sentence), query), order: order++ });
  }
  return ranked.filter((c) => c.overlap >= minOverlap).sort((a, b) => b.overlap - a.overlap || a.order - b.order);
}

/**
 * The best sentences within `maxChars`, best first: the best one is cut to the budget rather than
 * skipped; later ones must fit whole. Repeated sentences count once.
 */
export function pickWithin(ranked: RankedSentence[], maxChars: number): RankedSentence[] {
  const chosen: RankedSentence[] = [];
  let length = 0;
  for (const candidate of ranked) {
    if (chosen.some((c) => c.sentence === candidate.sentence)) continue;
    const room = maxChars - length;
    if (room <= 0) break;
    if (candidate.sentence.length > room) {
      if (chosen.length === 0) {
        chosen.push({ ...candidate, sentence: candidate.sentence.slice(0, room) });
        length += room;
      }
      continue;
    }
    chosen.push(candidate);
    length += candidate.sentence.length;
  }
  return chosen;
}

const OPTION_LINE = /^\s*([A-H])[.．、:：]\s*(.+)$/gm;

/** Options of a multiple-choice question written one per line (`A. …`). */
export function parseOptions(question: string): { letter: string; text: string }[] {
  return [...question.matchAll(OPTION_LINE)].map((m) => ({ letter: m[1]!, text: m[2]!.trim() }));
}

/** True for a line that is a multiple-choice option (`A. …`). */
export function isOptionLine(line: string): boolean {
  return /^\s*[A-H][.．、:：]\s*\S/.test(line);
}

/** The question's clauses (options left out), each with at least two bigrams (each worth a search): split at Chinese and Latin punctuation. */
export function questionClauses(question: string): string[] {
  return question
    .split('\n')
    .filter((line) => !isOptionLine(line))
    .flatMap((line) => line.split(/[，。；？！、,;?!：:（）()]/))
    .map((c) => c.trim())
    .filter((c) => characterBigrams(c).size >= 2);
}
