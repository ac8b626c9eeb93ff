/**
 * `hisrag` parses rubrics correctly; `reference` reproduces the published ProHist-Bench
 * scorer exactly, quirks included (an item written on the `加分项：` / `减分项：` header line
 * is dropped from the weights; judge lines must match `加分项_N:` exactly; only `\boxed{}`
 * holding nothing but capital letters counts), so published numbers can be reproduced.
 */
export type ScoringCompat = 'hisrag' | 'reference';
export const SCORING_COMPAT_MODES: readonly ScoringCompat[] = ['hisrag', 'reference'];
