import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

// The notebooks are executed by `npm run notebooks`; these checks keep the committed files clean.
const NOTEBOOK_DIR = 'notebooks';
const notebooks = readdirSync(NOTEBOOK_DIR).filter((f) => f.endsWith('.ipynb'));

const NotebookSchema = z.object({
  nbformat: z.literal(4),
  metadata: z.object({ kernelspec: z.object({ name: z.string(), language: z.string() }) }),
  cells: z.array(z.object({ cell_type: z.enum(['code', 'markdown']), source: z.union([z.string(), z.array(z.string())]), outputs: z.array(z.unknown()).optional() })),
});

describe('notebooks', () => {
  it('are the three analysis notebooks', () => {
    expect(notebooks.sort()).toEqual(['judge-agreement.ipynb', 'noise-study.ipynb', 'retrieval-depth.ipynb']);
  });

  for (const file of notebooks) {
    it(`${file} runs on the tslab kernel, is committed without outputs and loads the library through notebooks/hisrag.ts`, () => {
      const notebook = NotebookSchema.parse(JSON.parse(readFileSync(join(NOTEBOOK_DIR, file), 'utf8')));
      expect(notebook.metadata.kernelspec).toMatchObject({ name: 'tslab', language: 'typescript' });
      const code = notebook.cells.filter((c) => c.cell_type === 'code');
      expect(code.every((c) => (c.outputs ?? []).length === 0)).toBe(true);
      const source = code.map((c) => (Array.isArray(c.source) ? c.source.join('') : c.source)).join('\n');
      expect(source).toContain("from './hisrag'");
      // No parsing of run files of its own: everything goes through the results API.
      expect(source).not.toMatch(/items\.jsonl|JSON\.parse|readFileSync/);
    });
  }
});
