import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseRubric, verdictKey } from '../../src/scoring/rubric/parseRubric.js';
import { REPO_ROOT } from './runCli.js';

const PROHIST = join(REPO_ROOT, 'experiments', 'data', 'demo-prohist.json');

/** The demo benchmark's questions (with rubrics), for runs made up in tests. */
export function demoQuestions(): Array<{ id: string; category: string; dynasty: string; rubrics: string }> {
  return JSON.parse(readFileSync(PROHIST, 'utf8'));
}

/**
 * A run directory made up without running anything: the demo config (benchmark file by absolute
 * path) and one scored answer per question and condition, the judge's verdicts all hits, grouped by
 * dynasty. `skip` leaves out answers (condition, question index).
 */
export function makeLabelRun(dir: string, conditions: string[], options: { skip?: (condition: string, index: number) => boolean; failed?: (condition: string, index: number) => boolean } = {}): string {
  const config = parse(readFileSync(join(REPO_ROOT, 'experiments', 'demo.yaml'), 'utf8'));
  config.benchmark.file = PROHIST;
  config.output = dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const lines: string[] = [];
  demoQuestions().forEach((q, index) => {
    for (const condition of conditions) {
      if (options.skip?.(condition, index)) continue;
      const failed = options.failed?.(condition, index) ?? false;
      const verdicts = Object.fromEntries(verdictKeys(q.rubrics).map((k) => [k, 1]));
      lines.push(
        JSON.stringify({
          key: `m|${condition}|prohist:${q.id}`, itemId: q.id, benchmark: 'prohist', kind: 'rubric', category: q.category, question: `question ${q.id}`,
          model: 'm', condition, strategy: condition === 'closed-book' ? 'closed-book' : 'rag', retriever: null, k: null, prompt: [], retrieved: [], contextIds: [], truncated: 0,
          response: { text: `answer ${index} ${conditions.indexOf(condition)}`, raw: `answer ${index} ${conditions.indexOf(condition)}` },
          score: failed ? { status: 'judge_failed', score: null, scoreRaw: null, metric: 'rs' } : { status: 'scored', score: 50, scoreRaw: 50, metric: 'rs', verdicts },
          groups: { dynasty: q.dynasty, category: q.category }, durationMs: 1,
        }),
      );
    }
  });
  writeFileSync(join(dir, 'items.jsonl'), lines.join('\n') + '\n');
  return dir;
}

/** The verdict keys (`加分项_1` … `减分项_n`) of a rubric text, as the scorer parses it. */
export function verdictKeys(rubrics: string): string[] {
  return parseRubric(rubrics).map(verdictKey);
}
