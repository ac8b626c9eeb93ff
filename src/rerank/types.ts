/** What a reranker gives back for one query and its candidate passages. */
export interface RerankOutcome {
  /** One score per passage, in input order; higher is more relevant. */
  scores: number[];
  /**
   * Set when the reranker could not rank (an LLM's unusable answer): `scores` then keep the
   * first-stage order, and this says why. Counted, and shown on every chunk of the list.
   */
  fallback?: string;
}

/** Every reranker (cross-encoder, remote /rerank server, LLM listwise) behind one interface. */
export interface Reranker {
  readonly name: string;
  rerank(query: string, passages: string[]): Promise<RerankOutcome>;
  /** For run manifests: model, protocol, parameters. */
  describe(): RerankerDescription;
  close(): Promise<void>;
}

/** A reranker as run manifests record it: its model or endpoint where it has one; anything else as is. */
export type RerankerDescription = { name: string; model?: string; endpoint?: string; [key: string]: unknown };

/** A failure to rerank that is not the user's input (a server that keeps failing, a bad reply). */
export class RerankError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RerankError';
  }
}
