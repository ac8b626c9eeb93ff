import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreLongHisDoc } from '../../../src/scoring/longhisdoc/accuracy.js';
import { loadLongHisDocQa, parsePageList, type LongHisDocRecord } from '../../../src/benchmarks/longhisdoc/schema.js';
import { extractByRules } from '../../../src/scoring/extractors/rules.js';

const QA_FILE = resolve(process.cwd(), '../shared/data/LongHisDoc.json');
const present = existsSync(QA_FILE);
if (!present) console.warn(`LongHisDoc real-data tests skipped: ${QA_FILE} is absent`);

/** How a perfect model would write the gold answer as free text. */
function goldAsResponse(record: LongHisDocRecord): string {
  if (record.answer_type === 'List') return JSON.stringify(record.answer);
  if (Array.isArray(record.answer)) return String(record.answer[0]);
  return record.answer;
}

describe.runIf(present)('the real LongHisDoc QA file', () => {
  const load = () => loadLongHisDocQa(QA_FILE);

  it('loads every record through the schema', async () => {
    const file = await load();
    const records = Object.values(file).flat();
    expect(Object.keys(file)).toHaveLength(101);
    expect(records).toHaveLength(1012);
    for (const record of records) expect(parsePageList(record.input_pages)).not.toBeNull();
  });

  it('scores every gold answer against itself as 1', async () => {
    const records = Object.values(await load()).flat();
    const failures = records.filter((record) => {
      const text = goldAsResponse(record);
      return scoreLongHisDoc({ answerType: record.answer_type, gold: record.answer, response: text, extracted: text }) !== 1;
    });
    expect(failures.map((r) => r.item_id)).toEqual([]);
  });

  it('scores every gold answer as 1 after rule-based extraction', async () => {
    const records = Object.values(await load()).flat();
    const failures = records.filter((record) => {
      const text = goldAsResponse(record);
      const extracted = extractByRules(text, record.answer_type);
      return scoreLongHisDoc({ answerType: record.answer_type, gold: record.answer, response: text, extracted }) !== 1;
    });
    expect(failures.map((r) => `${r.item_id} ${r.answer_type} ${JSON.stringify(r.answer)}`)).toEqual([]);
  });
});
