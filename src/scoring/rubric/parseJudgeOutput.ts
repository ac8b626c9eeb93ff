import type { Verdicts } from '../types.js';
import type { ScoringCompat } from '../compat.js';
import { stripThink } from '../stripThink.js';

export interface ParsedJudgeOutput {
  verdicts: Verdicts;
  /** Non-empty lines that are not a verdict line (explanations, headings, malformed lines). */
  strayLines: number;
}

// `加分项_3: 1`, tolerating list bullets, bold markers and spaces around the parts.
const VERDICT_LINE = /^[-*•>\s]*\**\s*(加分项|减分项)\s*_\s*0*(\d+)\s*\**\s*:\s*\**\s*([01])\s*\**$/;

/**
 * Reads a judge's verdict lines (`加分项_N: 0|1`, `减分项_N: 0|1`; full-width colons allowed)
 * after dropping any reasoning block. Other lines are ignored and counted. With
 * `compat: 'reference'` a line counts only when, as in the published scorer, the text before
 * its first colon is exactly the key and the text after it an integer (any integer other than
 * 1 counts as 0).
 */
export function parseJudgeOutput(text: string, options: { compat?: ScoringCompat } = {}): ParsedJudgeOutput {
  const verdicts: Verdicts = {};
  let strayLines = 0;
  for (const rawLine of stripThink(text).split('\n')) {
    const line = rawLine.trim().replace(/：/g, ':');
    if (!line) continue;
    if (options.compat === 'reference') {
      const colon = line.indexOf(':');
      const value = colon === -1 ? '' : line.slice(colon + 1).trim();
      if (colon === -1 || !/^[+-]?\d+$/.test(value)) {
        strayLines++;
        continue;
      }
      verdicts[line.slice(0, colon).trim()] = Number(value) === 1 ? 1 : 0;
      continue;
    }
    const match = VERDICT_LINE.exec(line);
    if (!match) {
      strayLines++;
      continue;
    }
    verdicts[`${match[1]}_${Number(match[2])}`] = match[3] === '1' ? 1 : 0;
  }
  return { verdicts, strayLines };
}
