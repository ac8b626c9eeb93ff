export interface SplitAnswer {
  /** What gets scored: everything after the last `</think>`. */
  text: string;
  reasoning?: string;
}

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

/**
 * Separates reasoning from the answer. Reasoning models put it in `reasoning_content`
 * (DeepSeek, Qwen, vLLM) or inline as `<think>…</think>`; the scorer sees only what follows the
 * last `</think>` (DESIGN.md). An opened but never closed `<think>` (cut by max tokens) leaves no answer.
 */
export function splitReasoning(content: string, reasoningContent?: string | null): SplitAnswer {
  const parts: string[] = [];
  if (reasoningContent) parts.push(reasoningContent.trim());
  let text = content;
  const close = content.lastIndexOf(THINK_CLOSE);
  if (close >= 0) {
    parts.push(content.slice(0, close).replace(THINK_OPEN, '').trim());
    text = content.slice(close + THINK_CLOSE.length);
  } else if (content.trimStart().startsWith(THINK_OPEN)) {
    parts.push(content.trimStart().slice(THINK_OPEN.length).trim());
    text = '';
  }
  const reasoning = parts.filter(Boolean).join('\n\n');
  return reasoning ? { text: text.trim(), reasoning } : { text: text.trim() };
}
