import { z } from 'zod';

// Field schemas with messages a researcher can act on (zod's defaults read like type-checker output).
const POSITIVE_INT = 'expected a positive integer';

export const positiveInt = () =>
  z.number({ error: POSITIVE_INT }).int({ error: POSITIVE_INT }).positive({ error: POSITIVE_INT });

export const nonNegativeInt = () =>
  z
    .number({ error: 'expected a non-negative integer' })
    .int({ error: 'expected a non-negative integer' })
    .nonnegative({ error: 'expected a non-negative integer' });

export const nonEmptyString = (what = 'a non-empty string') =>
  z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}` });

/** `{ name: <registered implementation>, ...its params }`; params are checked against the registry. */
export const componentSpec = (stage: string) =>
  z
    .object({ name: nonEmptyString(`the name of a registered ${stage}`) })
    .catchall(z.unknown());

export type ComponentSpec = { name: string } & Record<string, unknown>;
