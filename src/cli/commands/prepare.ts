import type { Command } from 'commander';
import { collect } from '../options.js';

/** `hisrag prepare <config>`: builds (or, with --dry-run, lists) the artefacts of a config's `prepare` section that are missing or out of date. */
export function registerPrepareCommand(program: Command): void {
  program
    .command('prepare')
    .description("Build the generated models, corpora and indexes of a config's prepare section that are missing or out of date with their inputs, saying why")
    .argument('<config>', 'experiment config (YAML)')
    .option('--dry-run', 'say what would be built or rebuilt, and why, without building anything')
    .option('--frozen', 'build nothing: refuse (exit 2) when an artefact is missing or out of date, naming it and why')
    .option('--set <path=value>', 'override a config field, value as YAML (repeatable)', collect, [])
    .option('--no-progress', 'do not show progress')
    .addHelpText(
      'after',
      `
Each artefact records what it was built from: its input files by content hash (corpus sources, the
embedder's model files) and the settings that shaped it (builder, chunking, index parameters). A
changed input rebuilds it, and every index built on a corpus whose chunks changed. hisrag run
prepares the same way before its first answer.`,
    )
    .action(async (configFile: string, opts: { dryRun?: boolean; frozen?: boolean; set: string[]; progress: boolean }) => {
      const { loadExperimentConfig } = await import('../../config/load.js');
      const { prepareArtefacts } = await import('../../app/prepare.js');
      const config = await loadExperimentConfig(configFile, opts.set);
      await prepareArtefacts(config, {
        log: (line) => process.stdout.write(line + '\n'),
        progress: opts.progress,
        ...(opts.dryRun ? { dryRun: true } : {}),
        ...(opts.frozen ? { frozen: true } : {}),
      });
    });
}
