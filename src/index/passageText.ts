import type { Chunk } from '../runFiles/corpusFiles.js';

/** The text embedded for a chunk: `title\ntext` (default, as FlashRAG does for Wikipedia) or the text alone. */
export function passageText(chunk: Pick<Chunk, 'title' | 'text'>, passage: 'title+text' | 'text'): string {
  return passage === 'title+text' && chunk.title ? `${chunk.title}\n${chunk.text}` : chunk.text;
}
