/**
 * The retrieved-context section of a prompt, written and (by the offline extractive generator, which
 * sees only the messages) read back: both directions in one file keep them in step.
 */

export const QUESTION_MARKER = '【问题】';
export const CONTEXT_END = '【资料结束】';
const ENTRY_HEADER = /^【资料(\d+)】(.*)$/;

export interface ContextEntry {
  title: string;
  /** One-based page numbers (LongHisDoc pages, or a window of pages), shown when present. */
  pages?: number[];
  text: string;
}

export interface ParsedContextEntry {
  /** The number after 资料 (1-based position in the prompt). */
  index: number;
  /** The rest of the header line: `《title》（第N页）`. */
  header: string;
  text: string;
}

/** Titles that already carry book brackets (LongHisDoc `book_name`: `《書名》（注）`) are kept as they are. */
function bracketTitle(title: string): string {
  const bare = title.trim();
  if (!bare) return '';
  return /[《》]/.test(bare) ? bare : `《${bare}》`;
}

/** Header line of one entry: `【资料2】《title》（第12页）`. */
export function formatContextHeader(position: number, entry: Omit<ContextEntry, 'text'>): string {
  const pages = entry.pages ?? [];
  const first = pages[0];
  const last = pages[pages.length - 1];
  const page = first === undefined ? '' : first === last ? `（第${first}页）` : `（第${first}–${last}页）`;
  return `【资料${position}】${bracketTitle(entry.title)}${page}`;
}

/** `【资料1】《title》…\ntext\n\n【资料2】…\n…\n【资料结束】`; empty string for no entries. */
export function formatContextBlock(entries: ContextEntry[]): string {
  if (entries.length === 0) return '';
  const body = entries.map((entry, i) => `${formatContextHeader(i + 1, entry)}\n${entry.text.trim()}`);
  return `${body.join('\n\n')}\n${CONTEXT_END}`;
}

/**
 * Entries of the context block found in `text`, in prompt order; `[]` when the text has none
 * (a closed-book prompt). An entry runs from its header line to the next header or the end marker.
 */
export function parseContextBlock(text: string): ParsedContextEntry[] {
  const entries: ParsedContextEntry[] = [];
  let current: ParsedContextEntry | null = null;
  const lines: string[] = [];
  const finish = () => {
    if (current) entries.push({ ...current, text: lines.join('\n').trim() });
    current = null;
    lines.length = 0;
  };
  for (const line of text.split('\n')) {
    const header = ENTRY_HEADER.exec(line);
    if (header) {
      finish();
      current = { index: Number(header[1]), header: header[2]!.trim(), text: '' };
      continue;
    }
    if (line.trim() === CONTEXT_END) {
      finish();
      continue;
    }
    if (current) lines.push(line);
  }
  finish();
  return entries;
}

/** The text up to the next line that starts a `【…】` marker (the first line always kept), trimmed. */
export function textUntilNextMarker(text: string): string {
  const kept: string[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (i > 0 && /^【[^】]+】/.test(line.trim())) break;
    kept.push(line);
  }
  return kept.join('\n').trim();
}

/**
 * The question inside a prompt: the text after `【问题】` up to the next `【…】` marker line,
 * or, when a custom template has no marker, the message with its context block removed.
 */
export function extractQuestion(text: string): string {
  const at = text.lastIndexOf(QUESTION_MARKER);
  if (at >= 0) return textUntilNextMarker(text.slice(at + QUESTION_MARKER.length));
  const entries = parseContextBlock(text);
  if (entries.length === 0) return text.trim();
  const lines = text.split('\n');
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (ENTRY_HEADER.test(line)) inside = true;
    else if (line.trim() === CONTEXT_END) {
      inside = false;
      continue;
    }
    if (!inside) out.push(line);
  }
  return out.join('\n').trim();
}
