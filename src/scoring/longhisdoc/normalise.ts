import { toSimplified } from '../../text/simplify.js';

// Variant characters OpenCC leaves alone but the LongHisDoc reference maps before converting.
const EXTRA_VARIANTS: Record<string, string> = { '𡊮': '袁', 叅: '参' };

/** Both sides of every LongHisDoc comparison go through this: variants, then t → s. */
export function simplifyForScoring(text: string): string {
  let out = text;
  for (const [variant, standard] of Object.entries(EXTRA_VARIANTS)) out = out.split(variant).join(standard);
  return toSimplified(out);
}
