import type { SectionedDocument } from '../chunking/types.js';
import type { Chunk, CorpusDocument } from '../runFiles/corpusFiles.js';
import { fingerprintChunkText } from './chunkFingerprints.js';
import type { BuilderItem, ChunkBatch } from './types.js';

/** Collects items and their chunks into a ChunkBatch. */
export class ChunkBatchWriter {
  private items = 0;
  private readonly skipped: Record<string, number> = {};
  private readonly lines: string[] = [];
  private readonly fingerprints: number[] = [];
  private readonly documents: string[] = [];

  add(item: BuilderItem, chunks: () => Chunk[]): void {
    this.items++;
    if (item.kind === 'skipped') {
      this.skipped[item.reason] = (this.skipped[item.reason] ?? 0) + 1;
      return;
    }
    this.documents.push(...documentLines(item.document));
    for (const chunk of chunks()) {
      this.lines.push(JSON.stringify(chunk));
      const [hi, lo] = fingerprintChunkText(chunk.text);
      this.fingerprints.push(hi, lo);
    }
  }

  finish(): ChunkBatch {
    const lines = new TextEncoder().encode(this.lines.length > 0 ? this.lines.join('\n') + '\n' : '');
    // JSON escapes newlines inside strings and UTF-8 never has 0x0A inside a character: every 0x0A ends a line.
    const lineEnds = new Uint32Array(this.lines.length);
    for (let i = 0, at = lines.indexOf(10); at >= 0; at = lines.indexOf(10, at + 1)) lineEnds[i++] = at + 1;
    const documents = new TextEncoder().encode(this.documents.length > 0 ? this.documents.join('\n') + '\n' : '');
    return { items: this.items, skipped: this.skipped, lines, lineEnds, fingerprints: Uint32Array.from(this.fingerprints), documents };
  }
}

/** A source document's `documents.jsonl` lines: itself, or the parts it joins (a page window: its pages). */
function documentLines(document: SectionedDocument): string[] {
  const lines = document.parts
    ? document.parts.map((part) => ({ doc: part.doc, docId: document.docId, text: document.text.slice(part.start, part.end) }))
    : [{ doc: document.idKey ?? document.docId, docId: document.docId, title: document.title, text: document.text }];
  return lines.map((line) => JSON.stringify(line satisfies CorpusDocument));
}
