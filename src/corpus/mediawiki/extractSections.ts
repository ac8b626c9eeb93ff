import { toSimplified } from '../../text/simplify.js';
import type { DocumentSection } from '../../chunking/types.js';

const HEADING = /^(={2,6})\s*(.+?)\s*\1\s*$/;

/**
 * Splits a TextExtracts plain-text extract (`explaintext`: headings as `== 生平 ==` lines) into
 * sections with heading paths, dropping the named sections and their subsections.
 */
export function extractToSections(extract: string, dropSections: string[], convert: (text: string) => string): DocumentSection[] {
  const dropped = new Set(dropSections.map((h) => toSimplified(h)));
  const sections: DocumentSection[] = [];
  const path: string[] = [];
  let current: { headings: string[]; lines: string[]; dropped: boolean } = { headings: [], lines: [], dropped: false };
  let dropBelow = Infinity;
  const close = () => {
    const text = convert(current.lines.map((l) => l.trim()).filter(Boolean).join('\n'));
    if (!current.dropped && text) sections.push({ headings: current.headings, text });
  };
  for (const line of extract.split(/\r?\n/)) {
    const match = HEADING.exec(line);
    if (!match) {
      current.lines.push(line);
      continue;
    }
    close();
    const depth = match[1]!.length - 2;
    const heading = convert(match[2]!);
    if (depth <= dropBelow) dropBelow = Infinity;
    path.length = depth;
    path[depth] = heading;
    let isDropped = dropBelow !== Infinity;
    if (!isDropped && dropped.has(toSimplified(heading))) {
      dropBelow = depth;
      isDropped = true;
    }
    current = { headings: path.filter(Boolean), lines: [], dropped: isDropped };
  }
  close();
  return sections;
}
