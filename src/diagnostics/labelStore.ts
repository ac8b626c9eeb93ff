import { createHash } from 'node:crypto';
import { stableStringify } from '../generation/responseCache.js';
import { JSON_VALUE, KeyValueStore, type KeyValueTable } from '../io/keyValueStore.js';
import type { ClaimLabel } from '../runFiles/diagnosis.js';

const hash = (value: unknown) => createHash('sha256').update(stableStringify(value)).digest('hex');

/**
 * Every extraction and label obtained, on disk: a resumed diagnosis sends only what is new, and one label
 * serves every condition checking that claim against that passage. Only successes are stored.
 */
export class LabelStore {
  private readonly store: KeyValueStore;
  private readonly extractions: KeyValueTable<unknown>;
  private readonly labels: KeyValueTable<unknown>;

  constructor(file: string) {
    this.store = new KeyValueStore(file, 'diagnostics cache');
    this.extractions = this.store.table('claim_extractions', JSON_VALUE);
    this.labels = this.store.table('claim_labels', JSON_VALUE);
  }

  static extractionKey(fingerprint: string, role: string, question: string, text: string): string {
    return hash({ fingerprint, role, question, text });
  }

  static labelKey(fingerprint: string, question: string, claim: string, text: string): string {
    return hash({ fingerprint, question, claim, text });
  }

  getClaims(key: string): string[] | undefined {
    const value = this.extractions.get(key);
    return Array.isArray(value) && value.every((c) => typeof c === 'string') ? (value as string[]) : undefined;
  }

  putClaims(key: string, claims: string[]): void {
    this.extractions.putMany([[key, claims]]);
  }

  getLabel(key: string): ClaimLabel | undefined {
    const value = this.labels.get(key);
    return value === 'entailment' || value === 'neutral' || value === 'contradiction' ? value : undefined;
  }

  putLabels(entries: [string, ClaimLabel][]): void {
    this.labels.putMany(entries);
  }

  close(): void {
    this.store.close();
  }
}
