import { Command, CommanderError } from 'commander';
import { EXIT_CODES, InputError, InterruptedError, ServiceUnavailableError } from '../errors.js';
import { installInterruptHandlers, interrupted } from './interrupts.js';
import { registerModelCommands } from './commands/model.js';
import { registerServeCommands } from './commands/serve.js';
import { registerCorpusCommands } from './commands/corpus.js';
import { registerIndexCommands } from './commands/index.js';
import { registerRetrieveCommand } from './commands/retrieve.js';
import { registerScoreCommands } from './commands/score.js';
import { registerRunCommand } from './commands/run.js';
import { registerPrepareCommand } from './commands/prepare.js';
import { registerPowerCommand } from './commands/power.js';
import { registerJudgesCommand } from './commands/judges.js';
import { registerRejudgeCommand } from './commands/rejudge.js';
import { registerReportCommands } from './commands/report.js';
import { registerViewCommand } from './commands/view.js';
import { registerDiagnoseCommand } from './commands/diagnose.js';
import { registerAnnotateCommand } from './commands/annotate.js';
import { registerBatchCommands } from './commands/batch.js';
import { registerSchemaCommand } from './commands/schema.js';

import { VERSION } from '../version.js';

/** Builds the CLI: a thin layer over the library API, one file per command group. */
export function buildProgram(): Command {
  const program = new Command('hisrag')
    .description('RAG experiments on Chinese historical text: does retrieval help or hurt, and how does it change with k?')
    .version(VERSION)
    .helpCommand('help [command]', 'Show help for a command')
    .showHelpAfterError('(run with --help for usage)');
  program.exitOverride();
  registerModelCommands(program);
  registerServeCommands(program);
  registerCorpusCommands(program);
  registerIndexCommands(program);
  registerRetrieveCommand(program);
  registerScoreCommands(program);
  registerPrepareCommand(program);
  registerRunCommand(program);
  registerPowerCommand(program);
  registerJudgesCommand(program);
  registerRejudgeCommand(program);
  registerDiagnoseCommand(program);
  registerAnnotateCommand(program);
  registerBatchCommands(program);
  registerReportCommands(program);
  registerViewCommand(program);
  registerSchemaCommand(program);
  // Every subcommand shares the parent's error handling (exit 2 for usage errors).
  for (const command of program.commands) applyExitOverride(command);
  return program;
}

function applyExitOverride(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) applyExitOverride(sub);
}

/** `hisrag retrieve --json | head -1`: the reader went away; stop quietly, as Unix tools do. */
function quitOnClosedPipe(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(EXIT_CODES.ok);
  throw error;
}

/**
 * Runs the CLI and returns the process exit code, the same for every command: 0 ok, 1 internal
 * failure, 2 bad input, 3 an external service unavailable (resumable), 130 interrupted.
 */
export async function main(argv: string[]): Promise<number> {
  installInterruptHandlers();
  // Once per process: main() may run many times in one (the tests' in-process CLI), and a listener per call piles up.
  if (!process.stdout.listeners('error').includes(quitOnClosedPipe)) process.stdout.on('error', quitOnClosedPipe);
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    if (interrupted()) return EXIT_CODES.interrupted;
    // A command may set its own status.
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version exit with 0; commander already printed the message.
      return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.input;
    }
    if (error instanceof InterruptedError || interrupted()) {
      process.stderr.write(`hisrag: ${error instanceof InterruptedError ? error.message : 'interrupted'}\n`);
      return EXIT_CODES.interrupted;
    }
    if (error instanceof ServiceUnavailableError) {
      process.stderr.write(`hisrag: ${error.message}\n`);
      return EXIT_CODES.service;
    }
    if (error instanceof InputError) {
      process.stderr.write(`hisrag: ${error.message}\n`);
      return EXIT_CODES.input;
    }
    process.stderr.write(`hisrag: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT_CODES.internal;
  }
}
