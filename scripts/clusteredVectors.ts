import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { Embeddings } from '@langchain/core/embeddings';
import type { TextEmbedder } from '../src/embedding/types.js';
import type { EmbedderIdentity } from '../src/runFiles/indexManifest.js';

// One seeded uniform source for the fixtures and the benchmarks (re-exported for bench-retrieval).
import { mulberry32 } from '../src/models/fixture/seededRandom.js';

export { mulberry32 };

function gaussian(uniform: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/**
 * How the synthetic vectors are arranged:
 * - `flat`: n/100 clusters with independent random centres; a vector is its centre plus Gaussian noise of
 *   the same scale (cosine ≈ 0.5 within a cluster, ≈ 0 between clusters). No structure between clusters:
 *   whatever ranks past a query's own cluster is a near-tie among random vectors — the hardest case for
 *   a graph index (the original benchmark data).
 * - `topics`: the same clusters grouped into topics (20 clusters each) and sharing one common direction,
 *   the way sentence embeddings of one corpus are (bge's embeddings of unrelated passages still have a
 *   cosine of ~0.3–0.4): cosine ≈ 0.65 within a cluster, ≈ 0.35 within a topic, ≈ 0.15 otherwise.
 */
export type VectorStructure = 'flat' | 'topics';

/** Variance shares of the common direction, the topic, the cluster and the noise in a `topics` vector. */
const TOPIC_SHARES = { common: 0.15, topic: 0.2, cluster: 0.3, noise: 0.35 } as const;
const CLUSTERS_PER_TOPIC = 20;

/**
 * Clustered unit vectors, each a pure function of (seed, index): a vector is a random cluster's centre
 * (see VectorStructure) plus Gaussian noise, normalised. Queries come from the same process with another
 * stream, so they are near but not in the corpus.
 */
export class ClusteredVectors {
  private readonly centres: Float32Array;

  constructor(
    readonly dimension: number,
    readonly clusters: number,
    readonly seed = 1,
    readonly structure: VectorStructure = 'flat',
  ) {
    const uniform = mulberry32(seed * 7919);
    this.centres = new Float32Array(clusters * dimension);
    for (let i = 0; i < this.centres.length; i++) this.centres[i] = gaussian(uniform);
    if (structure === 'topics') {
      // centre = √common·C + √topic·T[topic] + √cluster·own, noise added per vector with √noise.
      const topics = Math.max(1, Math.ceil(clusters / CLUSTERS_PER_TOPIC));
      const common = Float32Array.from({ length: dimension }, () => gaussian(uniform));
      const topicCentres = Float32Array.from({ length: topics * dimension }, () => gaussian(uniform));
      const [c, t, k] = [Math.sqrt(TOPIC_SHARES.common), Math.sqrt(TOPIC_SHARES.topic), Math.sqrt(TOPIC_SHARES.cluster)];
      for (let cluster = 0; cluster < clusters; cluster++) {
        const topic = cluster % topics;
        for (let d = 0; d < dimension; d++) {
          const i = cluster * dimension + d;
          this.centres[i] = c * common[d]! + t * topicCentres[topic * dimension + d]! + k * this.centres[i]!;
        }
      }
    }
  }

  private draw(stream: number, index: number): Float32Array {
    const uniform = mulberry32((Math.imul(index + 1, 2654435761) ^ Math.imul(stream + this.seed, 40503)) >>> 0);
    const cluster = Math.floor(uniform() * this.clusters);
    const noise = this.structure === 'topics' ? Math.sqrt(TOPIC_SHARES.noise) : 1;
    const v = new Float32Array(this.dimension);
    let sum = 0;
    for (let d = 0; d < this.dimension; d++) {
      const x = this.centres[cluster * this.dimension + d]! + noise * gaussian(uniform);
      v[d] = x;
      sum += x * x;
    }
    const norm = Math.sqrt(sum);
    for (let d = 0; d < this.dimension; d++) v[d]! /= norm;
    return v;
  }

  vector(index: number): Float32Array {
    return this.draw(1, index);
  }

  query(index: number): Float32Array {
    return this.draw(2, index);
  }
}

/** Chunk text: `#<i> ` then 300–700 CJK characters (≈ a zhwiki chunk of ~500 characters). */
export function chunkText(index: number): string {
  const uniform = mulberry32(index * 31 + 17);
  const length = 300 + Math.floor(uniform() * 400);
  let text = `#${index} `;
  for (let i = 0; i < length; i++) text += String.fromCharCode(0x4e00 + Math.floor(uniform() * 6000));
  return text;
}

/** Writes `chunks.jsonl` + a complete corpus `manifest.json` of `n` synthetic chunks (streamed). */
export async function writeSyntheticCorpus(dir: string, n: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const out = createWriteStream(join(dir, 'chunks.jsonl'));
  const hash = createHash('sha256');
  for (let i = 0; i < n; i++) {
    const line = JSON.stringify({ id: `syn:${i}`, docId: `doc-${Math.floor(i / 8)}`, title: `条目${Math.floor(i / 8)}`, text: chunkText(i), meta: {} }) + '\n';
    hash.update(line);
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  const manifest = {
    name: `synthetic-${n}`,
    builder: 'bench-scale',
    complete: true,
    source: { path: 'synthetic' },
    parameters: { n },
    counts: { documentsRead: Math.ceil(n / 8), documentsSkipped: {}, chunksWritten: n, duplicateChunksDropped: 0 },
    contentHash: hash.digest('hex'),
    toolVersion: 'bench',
    timings: {},
  };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
}

/**
 * An embedder that returns each synthetic chunk's vector (the text starts with `#<i>`) and each
 * benchmark query's vector (`?<j>`): the index build runs its real path without a model's cost.
 */
export class SyntheticEmbedder extends Embeddings implements TextEmbedder {
  private readonly prepared = new Map<string, number[]>();

  constructor(private readonly vectors: ClusteredVectors) {
    super({});
  }

  /** Computes the first `count` query vectors ahead, so timed queries cost a lookup (a real model's cost is not what is measured). */
  prepareQueries(count: number): void {
    for (let j = 0; j < count; j++) this.prepared.set(`?${j}`, Array.from(this.vectors.query(j)));
  }

  private vectorFor(text: string): number[] {
    const prepared = this.prepared.get(text);
    if (prepared) return prepared;
    const match = /^([#?])(\d+)/.exec(text);
    if (!match) throw new Error(`synthetic embedder: unexpected text "${text.slice(0, 20)}"`);
    const i = Number(match[2]);
    return Array.from(match[1] === '#' ? this.vectors.vector(i) : this.vectors.query(i));
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.vectorFor(text.replace(/^[^\n]*\n/, '')));
  }

  async embedQuery(text: string): Promise<number[]> {
    return this.vectorFor(text);
  }

  async identity(): Promise<EmbedderIdentity> {
    return { model: `synthetic-clustered-${this.vectors.clusters}`, dimension: this.vectors.dimension, pooling: 'cls', normalize: true, queryPrefix: '', documentPrefix: '' };
  }

  async fingerprint(): Promise<string> {
    return `synthetic:${this.vectors.seed}:${this.vectors.clusters}:${this.vectors.dimension}`;
  }

  async dispose(): Promise<void> {}
}
