import { Embeddings } from '@langchain/core/embeddings';

/** LangChain's `Embeddings` for hisrag's embedders: one query is embedded as a batch of one (`embedQueries`, query prefix included). */
export abstract class BatchEmbeddings extends Embeddings {
  abstract embedQueries(queries: string[]): Promise<number[][]>;

  async embedQuery(query: string): Promise<number[]> {
    const [vector] = await this.embedQueries([query]);
    return vector!;
  }
}
