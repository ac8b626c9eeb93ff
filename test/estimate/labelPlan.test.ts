import { describe, expect, it } from 'vitest';
import { withLabelPlan, type PowerPlan } from '../../src/estimate/power.js';
import { powerTable } from '../../src/report/planTable.js';

const comparison = (condition: string, sd: number | null) => ({ model: 'm', condition, reference: 'closed', n: 600, clusters: 600, sd, designEffect: 1, mdd: null, mddBonferroni: null, questionsNeeded: null, questionsNeededBonferroni: null });
const plan: PowerPlan = {
  experiment: 'e',
  alpha: 0.05,
  power: 0.8,
  source: { kind: 'assumed', sd: 20, icc: 0 },
  questions: 600,
  clusters: 600,
  clusterField: null,
  families: [{ reference: 'closed', size: 2 }],
  comparisons: [comparison('rag@5', 20), comparison('rag@10', null)],
};

describe('hisrag power --label-width: labels needed before labelling', () => {
  it('gives the PPI++ labels for the width (the docs figure: 600 questions, σ_d 20, r 0.8, 6 points → 76) and – where σ_d is unknown', () => {
    const labelled = withLabelPlan(plan, 6, 0.8);
    expect(labelled.comparisons.map((c) => c.labelsNeeded)).toEqual([76, null]);
    expect(withLabelPlan(plan, 6, 0).comparisons[0]!.labelsNeeded).toBeGreaterThan(150);
    const text = powerTable(labelled);
    expect(text).toMatch(/labels for ±3/);
    expect(text).toMatch(/PPI\+\+/);
    expect(powerTable(plan)).not.toMatch(/labels for/);
  });
});
