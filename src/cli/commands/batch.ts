import type { Command } from 'commander';

const collect = (value: string, previous: string[]) => [...previous, value];

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

Every model, judge and extractor needs cache: <file> (the answers are imported into it). A file holds
the next round: the answers first, then (after an import) multi-step methods' next calls and the
judge's. Repeat export → run-batch → import until an export writes nothing; hisrag run then answers
every call from the caches. Exit codes: 0 done, 2 bad input.`,
    )
    .action(async (configFile: string, opts: { out: string; set: string[]; progress: boolean }) => {
      const { loadExperimentConfig } = await import('../../config/load.js');
      const { exportBatchRequests } = await import('../../batch/offlineBatch.js');
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
      const { importBatchOutput } = await import('../../batch/offlineBatch.js');
      const result = await importBatchOutput(file, opts.cache);
      process.stdout.write(`${file}: ${result.imported} answers imported into ${opts.cache}\n`);
      if (result.failed.length) {
        process.stdout.write(`${result.failed.length} lines failed and were not imported (the next export asks them again); first: ${result.failed[0]!.customId}: ${result.failed[0]!.message}\n`);
      }
    });
}
