// docs/runs.md's field reference of the run files is generated from their schemas and kept current.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_FILE, docWithReference, runFilesReference } from '../../scripts/runFilesReference.js';

describe('docs/runs.md: the run files reference', () => {
  it('is what the schemas give (regenerate: npx tsx scripts/runFilesReference.ts)', () => {
    const doc = readFileSync(DOC_FILE, 'utf8');
    expect(docWithReference(doc)).toBe(doc);
  });

  it('lists every file with its version and the fields readers rely on', () => {
    const reference = runFilesReference();
    for (const heading of ['`manifest.json` (version 1)', '`plan.json` (version 1)', '`summary.json` (version 1)', '`items.jsonl`']) expect(reference).toContain(heading);
    expect(reference).toContain('| `cells[].score` | object | yes |');
    expect(reference).toContain('| `imageDirs` | array of string | yes |');
  });
});
