import type { Command } from 'commander';
import { InputError } from '../../errors.js';
import { gracefulStop } from '../interrupts.js';
import { integer } from '../options.js';

/** Options every `serve` command shares: where to listen and how to load and run the local model. */
interface LocalModelServeOptions {
  model: string;
  port: number;
  host: string;
  servedName?: string;
  cacheDir?: string;
  allowRemote?: boolean;
  dtype: string;
  maxTokens?: number;
  batchSize?: number;
  workers?: number;
  threads?: number;
}

interface ServeEmbeddingsOptions extends LocalModelServeOptions {
  pooling?: string;
  normalize: boolean;
}

function addLocalModelOptions(command: Command, what: { model: string; servedName: string; maxTokens: string; minTokens: number; batch: string }): Command {
  return command
    .requiredOption('--model <id-or-dir>', `hub id (e.g. ${what.model}, from --cache-dir) or local model directory`)
    .option('--port <n>', 'TCP port (0 picks a free one)', integer('--port', 0), 8080)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--served-name <name>', what.servedName)
    .option('--cache-dir <dir>', 'cache directory of hub models (default .cache/transformers)')
    .option('--allow-remote', 'download the model from the hub if it is not cached')
    .option('--dtype <dtype>', 'fp32 or q8 (onnx/model_quantized.onnx)', 'fp32')
    .option('--max-tokens <n>', what.maxTokens, integer('--max-tokens', what.minTokens))
    .option('--batch-size <n>', `${what.batch} per model call (default 16)`, integer('--batch-size', 1))
    .option('--workers <n>', 'worker processes, each with its own model (default 0: in this process)', integer('--workers', 0))
    .option('--threads <n>', 'onnxruntime threads per model instance', integer('--threads', 1));
}

/** How the local model is loaded and run, as every serve command passes it to its model. */
const modelLoading = (o: LocalModelServeOptions) => ({ model: o.model, cacheDir: o.cacheDir, allowRemote: o.allowRemote ?? false, maxTokens: o.maxTokens, batchSize: o.batchSize, threads: o.threads });

/**
 * Serves until Ctrl-C/SIGTERM, then closes the server and the model (and its worker processes)
 * before the CLI exits 130.
 */
async function serveUntilStopped(start: () => Promise<{ close(): Promise<void> }>, closeModel: () => Promise<void>): Promise<void> {
  const stop = gracefulStop();
  try {
    const server = await start();
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) return resolve();
      stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
  } finally {
    await closeModel();
    stop.release();
  }
}

export function registerServeCommands(program: Command): void {
  const serve = program.command('serve').description('Serve local models over OpenAI-compatible HTTP APIs');
  const embeddings = serve
    .command('embeddings')
    .description(
      'Serve a local embedder as an OpenAI-compatible API: POST /v1/embeddings (string or array input, ' +
        'encoding_format float or base64) and GET /v1/models. Inputs are embedded as documents: clients add any query prefix ' +
        '(the openai embedder\'s queryPrefix). Runs until interrupted.',
    );
  addLocalModelOptions(embeddings, {
    model: 'Xenova/bge-large-zh-v1.5',
    servedName: 'model id clients use (default: --model as given)',
    maxTokens: 'truncate inputs to this many tokens (default 512)',
    minTokens: 3,
    batch: 'texts',
  })
    .option('--pooling <pooling>', 'cls, mean or last (default: the model directory\'s 1_Pooling/config.json, else cls)')
    .option('--no-normalize', 'do not L2-normalise vectors')
    .action(async (options: ServeEmbeddingsOptions) => {
      // Loaded on use so that the CLI starts fast.
      const { TransformersEmbedder } = await import('../../embedding/transformersEmbedder.js');
      const { startEmbeddingServer } = await import('../../embedding/embeddingServer.js');
      // A CLIP-family model (a vision tower beside the text tower) also serves page images: vLLM's chat-style requests.
      const { ClipEmbedder } = await import('../../embedding/clipEmbedder.js');
      const { existsSync } = await import('node:fs');
      const { join } = await import('node:path');
      const dual = existsSync(join(options.model, 'onnx', 'vision_model.onnx'));
      const embedder = dual
        ? new ClipEmbedder({ ...modelLoading(options), dtype: options.dtype as 'fp32', normalize: options.normalize })
        : new TransformersEmbedder({ ...modelLoading(options), dtype: options.dtype as 'fp32', pooling: options.pooling as 'cls' | undefined, normalize: options.normalize, documentPrefix: '', workers: options.workers });
      await serveUntilStopped(async () => {
        const identity = await embedder.identity();
        const server = await startEmbeddingServer({
          embedder,
          modelName: options.servedName ?? options.model,
          host: options.host,
          port: options.port,
        });
        process.stderr.write(`serving ${server.modelName} (${identity.dimension} dimensions, ${identity.pooling} pooling${dual ? '; page images too, as chat-style messages' : ''}) at ${server.url}\n`);
        return server;
      }, () => embedder.dispose());
    });

  const rerank = serve
    .command('rerank')
    .description(
      'Serve a local cross-encoder over the reranking APIs of GPU servers: POST /rerank as Text Embeddings Inference ' +
        '({query, texts} → [{index, score}]) and POST /v1/rerank as Jina/Cohere/vLLM/Infinity ({model, query, documents, top_n} → ' +
        '{results: [{index, relevance_score}]}). Scores are sigmoid(logit); passages over --max-tokens are cut, queries never. ' +
        'The `remote` reranker is its client. Runs until interrupted.',
    );
  addLocalModelOptions(rerank, {
    model: 'Xenova/bge-reranker-large',
    servedName: 'model id clients use in /v1/rerank (default: --model as given)',
    maxTokens: 'longest (query, passage) pair in tokens (default 512)',
    minTokens: 4,
    batch: 'pairs',
  }).action(async (options: LocalModelServeOptions) => {
      if (options.dtype !== 'fp32' && options.dtype !== 'q8') throw new InputError(`--dtype: expected fp32 or q8, got "${options.dtype}"`);
      const { CrossEncoderReranker } = await import('../../rerank/crossEncoderReranker.js');
      const { startRerankServer } = await import('../../rerank/rerankServer.js');
      const reranker = new CrossEncoderReranker({ ...modelLoading(options), dtype: options.dtype, workers: options.workers });
      await serveUntilStopped(async () => {
        const server = await startRerankServer({ reranker, modelName: options.servedName ?? options.model, host: options.host, port: options.port });
        process.stderr.write(`serving reranker ${server.modelName} at ${server.url} (POST /rerank, POST /v1/rerank)\n`);
        return server;
      }, () => reranker.close());
    });
}
