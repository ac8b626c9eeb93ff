import { Command, CommanderError } from 'commander';
import { InputError } from '../errors.js';
import { registerModelCommands } from './commands/model.js';
import { registerServeCommands } from './commands/serve.js';
import { registerCorpusCommands } from './commands/corpus.js';
import { registerIndexCommands } from './commands/index.js';
import { registerRetrieveCommand } from './commands/retrieve.js';
import { registerScoreCommands } from './commands/score.js';
import { registerRunCommand } from './commands/run.js';
import { registerReportCommands } from './commands/report.js';

export { VERSION } from '../version.js';
import { VERSION } from '../version.js';

/** Builds the CLI: a thin layer over the library API, one file per command group. */
export function buildProgram(): Command {
  const program = new Command('hisrag')
    .description('RAG experiments on Chinese historical text: does retrieval help or hurt, and how does it change with k?')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)');
  program.exitOverride();
  registerModelCommands(program);
  registerServeCommands(program);
  registerCorpusCommands(program);
  registerIndexCommands(program);
  registerRetrieveCommand(program);
  registerScoreCommands(program);
  registerRunCommand(program);
  registerReportCommands(program);
  // Every subcommand shares the parent's error handling (exit 2 for usage errors).
  for (const command of program.commands) applyExitOverride(command);
  return program;
}

function applyExitOverride(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) applyExitOverride(sub);
}

/** Runs the CLI and returns the process exit code: 0 ok, 1 internal failure, 2 bad input. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    // A command may set its own status (an interrupted run exits 130, like a shell).
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version exit with 0; commander already printed the message.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof InputError) {
      process.stderr.write(`hisrag: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`hisrag: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}
