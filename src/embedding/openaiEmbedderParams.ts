import { z } from 'zod';
import { RateLimitSchema } from '../endpoints/rateLimit.js';
import { EmbedderPresetSchema } from './conventions.js';

/** Config of the `openai` embedder: any OpenAI-compatible `/v1/embeddings` server (TEI, vLLM, Infinity, `hisrag serve embeddings`). */
export const OpenAIEmbedderParamsSchema = z
  .object({
    baseURL: z.union([z.url(), z.array(z.url()).min(1, { error: 'expected at least one replica URL' })]).describe('API root, e.g. `http://127.0.0.1:8080/v1`, or a list of replicas of one server (one TEI per GPU): each request goes to the replica with the fewest in flight; a failing one is drained and retried later'),
    model: z.string().min(1).describe('Model name the server serves'),
    apiKeyEnv: z.string().min(1).optional().describe('Name of the environment variable holding the API key (the key itself is never in config)'),
    preset: EmbedderPresetSchema.optional().describe('The served model\'s conventions (pooling, normalisation, prompts) as its model card states them; the fields below override it'),
    queryPrefix: z.string().optional().describe('Prepended by `embedQuery` only (the server cannot tell queries from documents). Unset: the preset\'s, else none'),
    documentPrefix: z.string().optional().describe('Prepended to every document embedded (never stored in chunk text). Unset: the preset\'s, else none'),
    pooling: z.enum(['cls', 'mean', 'last']).optional().describe('What the served model does (recorded in the identity; the server decides). Unset: the preset\'s, else recorded as `server`'),
    normalize: z.boolean().optional().describe('Whether the served vectors are unit length (recorded; dot product = cosine). Unset: the preset\'s, else true'),
    dimension: z.number().int().positive().optional().describe('Vector width; unset: an index\'s manifest gives it at query time, and an index build learns it from one request (a document, with the document prefix)'),
    batchSize: z.number().int().positive().default(64).describe('Texts per request'),
    maxConcurrency: z.number().int().positive().default(4).describe('Requests in flight at once, on each replica'),
    maxRetries: z.number().int().nonnegative().default(6).describe('Retries of a request while every replica fails, each after the soonest replica\'s cooldown'),
    retryBaseMs: z.number().int().positive().default(500).describe('Cooldown of a replica after a failure (connection refused, timeout, 5xx, 429), doubled with each failure in a row'),
    retryMaxMs: z.number().int().positive().default(30_000).describe('Longest cooldown of a replica in ms'),
    timeoutMs: z.number().int().positive().default(120_000).describe('A request with no reply after this many ms fails'),
    encodingFormat: z.enum(['float', 'base64']).optional().describe('Wire format of the vectors: base64 of little-endian float32 (the default, what OpenAI\'s SDK asks for) or JSON floats'),
    cacheFile: z.string().min(1).optional().describe('SQLite file caching vectors by (embedder, sha256 of text): a re-run embeds nothing twice'),
    // Tokens: the texts' estimate.
    rateLimit: RateLimitSchema.optional().describe('The provider\'s limits, paced evenly over the whole pool (shared with everything on the same URLs); without it the servers\' x-ratelimit-* headers and 429s set the pace'),
    // `imagePrompt` is the text beside each image (the model's document instruction); none when unset.
    imagePrompt: z.string().optional().describe('Page images (documents of an image index) go one a request as vLLM\'s chat-style embeddings take them (VLM2Vec, DSE-Qwen2-VL, GME): `messages: [{ role: \'user\', content: [image_url, text?] }]`; `imagePrompt` is the text part beside the…'),
    maxPixels: z.number().int().positive().optional().describe('Scans above this many pixels are scaled down (aspect kept) and sent as JPEG; unset: sent as they lie'),
  })
  .strict();
export type OpenAIEmbedderParams = z.output<typeof OpenAIEmbedderParamsSchema>;
export type OpenAIEmbedderConfig = z.input<typeof OpenAIEmbedderParamsSchema>;
