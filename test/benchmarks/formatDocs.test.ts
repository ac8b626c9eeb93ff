import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JSONL_RECORD_FIELDS } from '../../src/benchmarks/jsonl/loader.js';
import { LONGHISDOC_RECORD_FIELDS } from '../../src/benchmarks/longhisdoc/loader.js';
import { PROHIST_RECORD_FIELDS } from '../../src/benchmarks/prohist/loader.js';
import { JsonCollectionParamsSchema } from '../../src/corpus/json/builder.js';
import { REPO_ROOT } from '../helpers/runCli.js';

const doc = (name: string) => readFileSync(join(REPO_ROOT, 'docs', name), 'utf8');

// The format references are written by hand; these keep them listing every field the schemas accept.
describe('the benchmark and corpus format references name every field', () => {
  it('docs/benchmarks.md lists every record field of jsonl, prohist and longhisdoc', () => {
    const text = doc('benchmarks.md');
    for (const field of [...JSONL_RECORD_FIELDS, ...PROHIST_RECORD_FIELDS, ...LONGHISDOC_RECORD_FIELDS]) expect(text, field).toContain(`\`${field}\``);
  });

  it("docs/corpora.md lists every parameter of the json builder and its field mapping", () => {
    const text = doc('corpora.md');
    for (const param of Object.keys(JsonCollectionParamsSchema.shape)) expect(text, param).toMatch(new RegExp(`\\| \`${param}(\\.|\`)`));
    const fields = JsonCollectionParamsSchema.shape.fields.unwrap().shape;
    for (const field of Object.keys(fields)) expect(text, field).toContain(`\`fields.${field}\``);
  });
});
