/** A named pair of texts: the system message and the user message with placeholders. */
export interface PromptTemplate {
  system: string;
  /** May use `{question}`, `{context}` (retrieval strategies) and `{instructions}`. */
  user: string;
}
