import type { Command } from 'commander';
import { EXIT_CODES } from '../../errors.js';
import { collect } from '../options.js';

/** Failed lines listed one by one; beyond this, counted. */
const SHOWN = 20;

export function registerBatchCommands(program: Command): void {
  const batch = program.command('batch').description('Answer a grid offline in Batch API JSONL (vllm run-batch): export the requests, import the answers');
  batch
    .command('export')
    .description("Write the grid's requests that no response cache answers yet as Batch API JSONL, one file per model (and judge)")
    .argument('<config>', 'experiment config (YAML)')
    .option('--out <dir>', 'folder for the request files', 'batch-requests')
    .option('--set <path=value>', 'override a config field, value as YAML (repeatable)', collect, [])
    .option('--no-progress', 'do not show progress')
    .addHelpText(
      'after',
      `
Examples:
  hisrag batch export experiments/prohist-rag-depth.yaml --out /data/batch
  vllm run-batch -i /data/batch/qwen-….jsonl -o /data/batch/qwen-….output.jsonl --model Qwen/Qwen2.5-7B-Instruct
  hisrag batch import /data/batch/qwen-….output.jsonl --cache cache/qwen.sqlite

Every model, judge and extractor needs a response cache the answers are imported into: its cache:
<file>, or with batch: true and no cache:, .cache/responses-<model>.sqlite. A file holds
the next round: the answers first, then (after an import) multi-step methods' next calls and the
judge's. Repeat export → run-batch → import until an export writes nothing; hisrag run then answers
every call from the caches. An import takes every line it can read: failed lines (any producer's error
shape) and unreadable ones are named and asked again by the next export. Exit codes: 0 done, 2 bad
input (also after importing the good lines of a file with unreadable ones).`,
    )
    .action(async (configFile: string, opts: { out: string; set: string[]; progress: boolean }) => {
      const { loadExperimentConfig } = await import('../../config/load.js');
      const { exportBatchRequests } = await import('../../app/offlineBatch.js');
      const log = (line: string) => process.stdout.write(line + '\n');
      const files = await exportBatchRequests(await loadExperimentConfig(configFile, opts.set), { out: opts.out, log, progress: opts.progress });
      if (files.length === 0) {
        log('nothing left to ask: the response caches answer every call of the grid; hisrag run answers from them');
        return;
      }
      for (const f of files) {
        log(`${f.file}: ${f.requests} requests to ${f.model}`);
        log(`  vllm run-batch -i ${f.file} -o ${f.file.replace(/\.jsonl$/, '.output.jsonl')} --model ${f.model}`);
        log(`  hisrag batch import ${f.file.replace(/\.jsonl$/, '.output.jsonl')} --cache ${f.cache}`);
      }
    });
  batch
    .command('import')
    .description('Load a Batch API output file (vllm run-batch, or a provider download) into a response cache')
    .argument('<file>', 'the output JSONL')
    .requiredOption('--cache <file>', 'the response cache (the model’s cache: <file>) the answers go into')
    .action(async (file: string, opts: { cache: string }) => {
      const { importBatchOutput } = await import('../../app/offlineBatch.js');
      const result = await importBatchOutput(file, opts.cache);
      const out = (line: string) => process.stdout.write(line + '\n');
      out(`${file}: ${result.imported} answers imported into ${opts.cache}`);
      if (result.failed.length) {
        out(`${result.failed.length} lines failed and were not imported (the next export asks them again):`);
        for (const f of result.failed.slice(0, SHOWN)) out(`  ${file}:${f.line}: ${f.customId}: ${f.message.split('\n')[0]}`);
        if (result.failed.length > SHOWN) out(`  … ${result.failed.length - SHOWN} more`);
      }
      if (result.unreadable.length) {
        // The good lines are in; the unreadable ones are bad input worth a look (exit 2), and asked again by the next export.
        process.stderr.write(`hisrag: ${result.unreadable.length} lines could not be read and were not imported (the next export asks them again):\n`);
        for (const u of result.unreadable) process.stderr.write(`  ${file}:${u.line}: ${u.message}\n`);
        process.exitCode = EXIT_CODES.input;
      }
    });
}
