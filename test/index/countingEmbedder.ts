import { Embeddings } from '@langchain/core/embeddings';
import type { TextEmbedder } from '../../src/embedding/types.js';
import type { EmbedderIdentity } from '../../src/runFiles/indexManifest.js';

/** Wraps an embedder, counting the documents it embeds (to prove a resumed build embeds nothing twice). */
export class CountingEmbedder extends Embeddings implements TextEmbedder {
  documentsEmbedded = 0;

  constructor(
    private readonly inner: TextEmbedder,
    private readonly identityOverride: Partial<EmbedderIdentity> = {},
  ) {
    super({});
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.documentsEmbedded += texts.length;
    return this.inner.embedDocuments(texts);
  }

  embedQuery(text: string): Promise<number[]> {
    return this.inner.embedQuery(text);
  }

  async identity(): Promise<EmbedderIdentity> {
    return { ...(await this.inner.identity()), ...this.identityOverride };
  }

  async dispose(): Promise<void> {}
}
