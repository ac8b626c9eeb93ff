/** The values by key, keys in first-seen order (Map.groupBy, which Node 20 lacks). */
export function groupBy<T, K>(values: Iterable<T>, key: (value: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const v of values) {
    const k = key(v);
    (out.get(k) ?? out.set(k, []).get(k)!).push(v);
  }
  return out;
}
