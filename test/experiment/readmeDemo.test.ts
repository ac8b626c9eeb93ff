import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoTableIn, readmeDemoTable, withDemoTable } from '../../scripts/readmeDemoBlock.js';
import { demoConfigIn } from '../helpers/demoConfig.js';
import { REPO_ROOT, runCli } from '../helpers/runCli.js';

describe("the README's demo table", () => {
  it('is exactly what a fresh `npm run demo` prints (re-sync: node --import tsx scripts/update-readme-demo.ts)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-readme-demo-'));
    // The bundled demo config, unchanged but for where it writes.
    const result = await runCli(['run', demoConfigIn(dir), '--run-id', 'readme', '--no-progress']);
    expect(result.code, result.stderr).toBe(0);
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readmeDemoTable(readme)).toBe(demoTableIn(result.stdout));
  }, 180_000);

  it('is read from between its markers, and rewritten there alone', () => {
    const readme = 'intro\n<!-- demo-output:start -->\n```\nold\ntable\n```\n<!-- demo-output:end -->\nrest\n';
    expect(readmeDemoTable(readme)).toBe('old\ntable');
    expect(withDemoTable(readme, 'new')).toBe('intro\n<!-- demo-output:start -->\n```\nnew\n```\n<!-- demo-output:end -->\nrest\n');
    const printed = 'prepare: …\nmodel: a\nh\n--\nrow\n\nmodel: b\nh\n--\nrow\n\n(offline stand-ins)\nreport: x\n';
    expect(demoTableIn(printed)).toBe('model: a\nh\n--\nrow\n\nmodel: b\nh\n--\nrow');
  });
});
