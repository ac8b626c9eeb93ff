import type { Command } from 'commander';
import { InputError } from '../../errors.js';

const list = (value: string) => value.split(',').map((v) => v.trim()).filter(Boolean);
const int = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InputError(`${name}: expected a whole number, got "${value}"`);
  return n;
};

interface AnnotateOptions {
  size?: number;
  conditions?: string[];
  baseline?: string;
  seed?: number;
  strata?: string;
  allocation?: string;
  redraw?: boolean;
  export?: string;
  import?: string;
  annotator?: string;
  synthetic?: boolean;
}

export function registerAnnotateCommand(program: Command): void {
  program
    .command('annotate')
    .description('Human labels of a run’s answers: draw the sample to label (the same questions under the baseline and each condition), export or import labels')
    .argument('<run-dir>', 'a run directory (experiments/runs/<run-id>)')
    .option('--size <n>', 'questions per condition to draw', int('--size'))
    .option('--conditions <a,b>', 'conditions to label beside the baseline (default: every condition)', list)
    .option('--baseline <condition>', 'the condition differences are taken against (default: the run’s scoring.baseline)')
    .option('--seed <n>', 'seed of the draw (default: the run’s seed)', int('--seed'))
    .option('--strata <field>', 'group field to spread the draw over (default: the run’s scoring.cluster; none: questions)')
    .option('--allocation <how>', 'proportional (default: each cluster in proportion to its size, every question equally likely) or even (one question per cluster in turn; the unequal chances are recorded and weighted back)')
    .option('--redraw', 'replace a sample that already has labels (the labels stay in their files)')
    .option('--export <file>', 'write every annotator’s labels to a .jsonl or .csv file')
    .option('--import <file>', 'add labels made elsewhere (.jsonl lines or .csv rows key,item,mark) for --annotator')
    .option('--annotator <name>', 'whose labels --import adds (labels/<name>.jsonl)')
    .option('--synthetic', 'the imported labels are not a person’s reading (a demo’s stand-in): every surface says so')
    .addHelpText(
      'after',
      `
Examples:
  hisrag annotate experiments/runs/prohist-… --size 50
  hisrag annotate experiments/runs/prohist-… --size 30 --conditions rag@10,rag@100 --seed 7
  hisrag view experiments/runs/prohist-…     (then the run's "label answers" link)
  hisrag annotate experiments/runs/prohist-… --export labels.csv
  hisrag annotate experiments/runs/prohist-… --import marks.csv --annotator zhang

The sample is written to labels/sample.json; labels are appended to labels/<annotator>.jsonl
(never items.jsonl). A CSV has one row per rubric item: key,item,mark (item "correct" for
answers marked right/wrong). Exit codes: 0 done, 2 bad input (each bad line named).`,
    )
    .action(async (runDir: string, opts: AnnotateOptions) => {
      const log = (line: string) => process.stdout.write(line + '\n');
      if (opts.import) {
        if (!opts.annotator) throw new InputError('--import needs --annotator <name> (whose labels they are)');
        const { importLabels } = await import('../../app/labelExchange.js');
        const { imported } = await importLabels(runDir, opts.import, opts.annotator, { synthetic: opts.synthetic ?? false });
        log(`imported ${imported} ${opts.synthetic ? 'SYNTHETIC ' : ''}label(s) for ${opts.annotator} from ${opts.import}`);
        // Every surface that reads the run's files shows the labels at once: summary.json's judge check and what is written from it.
        const { refreshLabelledOutputs } = await import('../../app/rewriteReport.js');
        const refresh = await refreshLabelledOutputs(runDir);
        if (!refresh.refreshed) {
          log(refresh.reason);
          return;
        }
        const { labelBasisLines } = await import('../../report/labelBasis.js');
        const { withInterval } = await import('../../report/table.js');
        const check = refresh.judgeCheck;
        if (check) {
          for (const line of labelBasisLines(check)) log(line);
          for (const d of check.differences) log(`${d.model} ${d.condition} − ${d.baseline}: Δ judge-only ${withInterval(d.judgeOnly, 1, true)}, Δ corrected (PPI++) ${withInterval(d.ppiPlusPlus, 1, true)}, labels only ${withInterval(d.labelsOnly, 1, true)} (${d.labelled} of ${d.n} pairs labelled)`);
        }
        log(`updated: summary.json, summary.csv, tables/, report.html (${refresh.reportPath})`);
        return;
      }
      if (opts.export) {
        const { exportLabels } = await import('../../app/labelExchange.js');
        const { exported } = await exportLabels(runDir, opts.export);
        log(`exported ${exported} label(s) to ${opts.export}`);
        return;
      }
      if (opts.size === undefined || opts.size < 1) throw new InputError('--size: how many questions per condition to draw (a whole number from 1)');
      if (opts.allocation !== undefined && opts.allocation !== 'proportional' && opts.allocation !== 'even') throw new InputError(`--allocation: proportional or even, not "${opts.allocation}"`);
      const { drawRunLabelSample } = await import('../../app/labelSample.js');
      const { runDir: dir, sample, requested } = await drawRunLabelSample(runDir, {
        size: opts.size,
        conditions: opts.conditions,
        baseline: opts.baseline,
        seed: opts.seed,
        strata: opts.strata,
        allocation: opts.allocation as 'proportional' | 'even' | undefined,
        redraw: opts.redraw ?? false,
      });
      const short = requested > sample.size ? ` (only ${sample.size} questions have a scored answer under every condition)` : '';
      log(`drew ${sample.size} question(s)${short} × ${sample.conditions.length} condition(s) = ${sample.keys.length} answer(s) to label, seed ${sample.seed}`);
      log(`conditions: ${sample.conditions.join(', ')} (baseline ${sample.baseline}); spread over: ${sample.cluster ?? 'questions'} (${sample.allocation}; each question's inclusion probability recorded)`);
      log(`written: ${dir}/labels/sample.json`);
      const { basename } = await import('node:path');
      log(`label them: hisrag view ${dir}, then the run's "label answers" link (#/run/${basename(dir)}/label); one file per annotator: labels/<name>.jsonl`);
    });
}
