import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchmarks } from '../../src/benchmarks/registry.js';
import { nearestName } from '../../src/benchmarks/recordFields.js';
import { REPO_ROOT } from '../helpers/runCli.js';

describe('strict benchmark records', () => {
  it('suggests the near miss of a misspelt field, and nothing for an unrelated one', () => {
    expect(nearestName('gold_chunk_id', ['id', 'question', 'gold_chunk_ids'])).toBe('gold_chunk_ids');
    expect(nearestName('refrence_answer', ['answer', 'reference_answer'])).toBe('reference_answer');
    expect(nearestName('Question', ['id', 'question'])).toBe('question');
    expect(nearestName('source', ['id', 'question', 'answer', 'category'])).toBeUndefined();
  });

  it('longhisdoc: an unknown field is refused with the document and record; declared, it is kept as a group', async () => {
    const qa = JSON.parse(readFileSync(join(REPO_ROOT, 'corpora/sources/demo-longhisdoc/qa.json'), 'utf8')) as Record<string, Record<string, unknown>[]>;
    const [docId, records] = Object.entries(qa)[0]!;
    records[1]!.evidence_page = '[1]';
    records[0]!.annotator = 'A';
    const file = join(mkdtempSync(join(tmpdir(), 'hisrag-lhd-strict-')), 'qa.json');
    writeFileSync(file, JSON.stringify(qa));
    const load = (spec: Record<string, unknown>) => benchmarks.create({ name: 'longhisdoc', file, ...spec } as { name: string }, undefined).then((b) => b.load());
    await expect(load({ metadata: ['annotator'] })).rejects.toThrow(`${file}: ${docId}[1]: evidence_page: unknown field of a longhisdoc benchmark record (did you mean "evidence_pages"?)`);
    delete records[1]!.evidence_page;
    writeFileSync(file, JSON.stringify(qa));
    await expect(load({})).rejects.toThrow(`${docId}[0]: annotator: unknown field`);
    const items = await load({ metadata: ['annotator'] });
    expect(items[0]).toMatchObject({ meta: { annotator: 'A' }, groups: { annotator: 'A' } });
  });
});
