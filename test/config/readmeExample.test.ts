import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadExperimentConfig } from '../../src/config/load.js';
import { validateComponents } from '../../src/experiment/stages.js';
import { REPO_ROOT } from '../helpers/runCli.js';

describe('the README', () => {
  it('opens with the two commands: the demo and the tests', () => {
    const head = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n').slice(0, 8).join('\n');
    expect(head).toContain('npm ci && npm run demo');
    expect(head).toContain('npm test');
  });

  it('links to a configuration reference whose complete experiment config validates down to every component', async () => {
    const readme = readFileSync(join(REPO_ROOT, 'docs', 'configuration.md'), 'utf8');
    const block = /```yaml\n(name: my-study[\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const file = join(mkdtempSync(join(tmpdir(), 'hisrag-readme-')), 'example.yaml');
    writeFileSync(file, block!);
    const config = await loadExperimentConfig(file);
    await expect(validateComponents(config)).resolves.toBeUndefined();
    expect(config.strategies).toHaveLength(5);
  });
});
