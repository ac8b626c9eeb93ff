import { InputError } from '../errors.js';

/** A repeatable option's values, in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A whole-number option of at least `min`; `expected` says what it must be in the error. */
export const integer =
  (flag: string, min: number, expected = `an integer ≥ ${min}`) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) throw new InputError(`${flag}: expected ${expected}, got "${value}"`);
    return n;
  };

export const positiveInt = (flag: string) => integer(flag, 1, 'a positive integer');

/** An option that takes one of `choices` (`--graph: expected hnswlib or usearch, got "x"`). */
export const choice =
  <T extends string>(flag: string, choices: readonly T[]) =>
  (value: string): T => {
    if (!(choices as readonly string[]).includes(value)) throw new InputError(`${flag}: expected ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}, got "${value}"`);
    return value as T;
  };
