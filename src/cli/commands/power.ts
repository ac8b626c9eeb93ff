import type { Command } from 'commander';
import { InputError } from '../../errors.js';
import { collect } from '../options.js';

/** A number option as typed; left for the schema to refuse with the flag's name when it is not one. */
const numberOption = (value: string | undefined) => (value === undefined ? undefined : Number(value));

export function registerPowerCommand(program: Command): void {
  program
    .command('power')
    .description('Power before the run: per comparison, the minimum detectable difference at 80% power and α = 0.05, and the questions a difference needs')
    .argument('<config>', 'experiment config (YAML)')
    .option('--estimate-from <run-dir>', "σ_d and design effect from an earlier run's paired differences (its items.jsonl)")
    .option('--sd <points>', 'or assume: the standard deviation of one paired difference (points)')
    .option('--icc <rho>', 'with --sd: the intra-cluster correlation (default 0)')
    .option('--cluster-size <m>', 'with --sd: questions per cluster (default: the configured questions ÷ clusters)')
    .option('--difference <points>', 'also show the questions needed to detect this difference')
    .option('--alpha <alpha>', 'two-sided level of the test', '0.05')
    .option('--power <power>', 'probability of detecting the difference', '0.8')
    .option('--set <path=value>', 'override a config field, value as YAML (repeatable)', collect, [])
    .option('--label-width <points>', 'also show the human labels a corrected (PPI++) 95% interval of each Δ this wide needs')
    .option('--judge-r <r>', 'with --label-width: the assumed judge–human correlation of per-question differences', '0.8')
    .option('--json', 'print the figures as JSON')
    .addHelpText(
      'after',
      `
Examples:
  hisrag power experiments/longhisdoc-rag-depth.yaml --estimate-from experiments/runs/<run-id> --difference 3
  hisrag power experiments/prohist-rag-depth.yaml --sd 40 --icc 0.1 --cluster-size 10
  hisrag power experiments/prohist-rag-depth.yaml --sd 20 --label-width 6 --judge-r 0.8

MDD = (z₁₋α/₂ + z_power) · sqrt(design effect · σ_d² / n); design effect 1 + (m − 1)·ρ when assumed.
No model is called. Exit codes: 0 done, 2 bad input, 1 internal error.`,
    )
    .action(
      async (
        configFile: string,
        opts: { estimateFrom?: string; sd?: string; icc?: string; clusterSize?: string; difference?: string; alpha: string; power: string; set: string[]; json?: boolean; labelWidth?: string; judgeR: string },
      ) => {
        if (opts.estimateFrom && opts.sd !== undefined) throw new InputError('power: give either --estimate-from <run-dir> or --sd <points>, not both');
        if (!opts.estimateFrom && opts.sd === undefined) throw new InputError('power: give --estimate-from <run-dir> (an earlier run) or --sd <points> (an assumption)');
        if (opts.sd === undefined && (opts.icc !== undefined || opts.clusterSize !== undefined)) throw new InputError('power: --icc and --cluster-size go with --sd');
        const { loadExperimentConfig } = await import('../../config/load.js');
        const { estimatePower } = await import('../../app/dryRun.js');
        const { powerTable } = await import('../../report/planTable.js');
        const config = await loadExperimentConfig(configFile, opts.set);
        const power = await estimatePower(config, {
          alpha: Number(opts.alpha),
          power: Number(opts.power),
          ...(opts.difference !== undefined ? { difference: numberOption(opts.difference)! } : {}),
          ...(opts.estimateFrom
            ? { estimateFrom: opts.estimateFrom }
            : { assume: { sd: numberOption(opts.sd)!, ...(opts.icc !== undefined ? { icc: numberOption(opts.icc)! } : {}), ...(opts.clusterSize !== undefined ? { clusterSize: numberOption(opts.clusterSize)! } : {}) } }),
        });
        let plan = power;
        if (opts.labelWidth !== undefined) {
          const width = Number(opts.labelWidth);
          const judgeR = Number(opts.judgeR);
          if (!(width > 0)) throw new InputError(`power: --label-width must be a positive number of points, got ${opts.labelWidth}`);
          if (!(judgeR >= -1 && judgeR <= 1)) throw new InputError(`power: --judge-r must be between -1 and 1, got ${opts.judgeR}`);
          const { withLabelPlan } = await import('../../estimate/power.js');
          plan = withLabelPlan(power, width, judgeR);
        }
        process.stdout.write((opts.json ? JSON.stringify(plan, null, 2) : powerTable(plan)) + '\n');
      },
    );
}
