import { ConfigError } from '../errors.js';
import type { RunItemRecord } from '../runFiles/itemRecord.js';

/** `scoring.cluster: none`: intervals over questions, whatever the benchmark. */
export const NO_CLUSTER = 'none';
/** The LongHisDoc volume: the default cluster of runs whose records carry one. */
export const VOLUME_CLUSTER = 'doc_id';

/**
 * A record's LongHisDoc volume: its evidence's document, else its item id's prefix (`9242_3` →
 * `9242`; unanswerable questions name no evidence), so runs from before this setting have it too.
 */
export function volumeOf(record: Pick<RunItemRecord, 'kind' | 'itemId' | 'evidence'>): string | undefined {
  if (record.evidence?.docId) return record.evidence.docId;
  if (record.kind !== 'longhisdoc') return undefined;
  const cut = record.itemId.lastIndexOf('_');
  return cut > 0 ? record.itemId.slice(0, cut) : undefined;
}

const fieldOf = (record: RunItemRecord, field: string): string | undefined => record.groups[field] ?? (field === VOLUME_CLUSTER ? volumeOf(record) : undefined);

/**
 * The cluster field a run's intervals are bootstrapped over: `scoring.cluster` when set (`none`: no
 * clustering), else the LongHisDoc volume when the records carry one, else none (ProHist: its
 * questions share no source). A set field that no record carries is a configuration error.
 */
export function clusterFieldOf(records: RunItemRecord[], setting: string | undefined): string | null {
  if (setting === NO_CLUSTER) return null;
  if (setting === undefined) return records.some((r) => volumeOf(r) !== undefined) ? VOLUME_CLUSTER : null;
  if (records.length && !records.some((r) => fieldOf(r, setting) !== undefined)) {
    const known = [...new Set(records.flatMap((r) => Object.keys(r.groups)))].sort();
    throw new ConfigError(`scoring.cluster: no record carries "${setting}" (the records' group fields: ${known.join(', ') || 'none'}; ${VOLUME_CLUSTER} for LongHisDoc volumes; ${NO_CLUSTER} for no clustering)`);
  }
  return setting;
}

/** The cluster key of each record under `field`; a record without the field is a cluster of its own. */
export function clusterKeyOf(field: string): (record: RunItemRecord) => string {
  return (record) => {
    const value = fieldOf(record, field);
    return value === undefined ? `\u0000${record.benchmark}:${record.itemId}` : `${record.benchmark}\u0000${value}`;
  };
}
