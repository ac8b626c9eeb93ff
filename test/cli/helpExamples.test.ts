import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { REPO_ROOT } from '../helpers/runCli.js';

/** Every command of the CLI, depth first. */
function commands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(commands)];
}

/** What `--help` prints for a command. */
function helpOf(command: Command): string {
  let help = '';
  command.configureOutput({ writeOut: (text) => (help += text), writeErr: () => {} });
  command.outputHelp();
  return help;
}

describe('the CLI help', () => {
  it('names only config files that exist in the repository', () => {
    const named: string[] = [];
    for (const command of commands(buildProgram())) {
      const help = helpOf(command);
      // Bundled configs and data the examples point at (user data such as data/… is not ours).
      for (const match of help.matchAll(/(?:experiments|corpora)\/[\w./-]+\.(?:ya?ml|json)/g)) named.push(match[0]);
    }
    expect(named.length).toBeGreaterThan(0);
    for (const path of named) expect(existsSync(join(REPO_ROOT, path)), `${path} (named in a --help)`).toBe(true);
  });

  it('describes every command in one style, starting with a capital (options stay lower case)', () => {
    const lower: string[] = [];
    for (const command of commands(buildProgram())) {
      const help = helpOf(command);
      // Rows of the Commands section: `  name [args]   Description …`.
      const section = help.split(/^Commands:$/m)[1] ?? '';
      for (const match of section.matchAll(/^ {2}(\S.*?) {2,}(\S)/gm)) if (/[a-z]/.test(match[2]!)) lower.push(`${command.name()}: ${match[1]}`);
      if (/^[a-z]/.test(command.description())) lower.push(command.name());
    }
    expect(lower).toEqual([]);
  });
});
