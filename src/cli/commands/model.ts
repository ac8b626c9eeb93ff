import type { Command } from 'commander';
import { InputError } from '../../errors.js';
import { choice, positiveInt } from '../options.js';

interface FixtureCommandOptions {
  out: string;
  seed?: number;
  dim?: number;
  hidden?: number;
  encoder?: boolean;
  layers?: number;
  heads?: number;
  intermediate?: number;
  vocab?: number;
  maxTokens?: number;
  quantized: boolean;
  reranker?: boolean;
  kind?: string;
  imageSize?: number;
}

export function registerModelCommands(program: Command): void {
  const model = program.command('model').description('Embedding and reranking models: generate offline fixture models');
  model
    .command('fixture')
    .description(
      'Generate a model in the on-disk layout transformers.js loads for Xenova/bge-large-zh-v1.5 ' +
        '(config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx), deterministic from --seed. ' +
        'Default: a small bag-of-characters model (texts sharing characters embed close together). ' +
        'With --encoder: a full BERT encoder with random weights, plus onnx/model_quantized.onnx (dynamic int8) for dtype q8.',
    )
    .requiredOption('--out <dir>', 'output directory')
    .option('--seed <n>', 'random seed (default 42)', (v) => Number(v.match(/^\d+$/) ? v : NaN))
    .option('--dim <n>', 'output dimension / hidden size (default 64)', positiveInt('--dim'))
    .option('--encoder', 'full BERT encoder (embeddings, self-attention, GELU feed-forward, LayerNorm)')
    .option(
      '--reranker',
      'a cross-encoder (sequence classification, one logit per (query, passage) pair, loaded like Xenova/bge-reranker-large) instead of an embedder: ' +
        'by default a small query-coverage scorer; with --encoder a BERT encoder with a classification head and random weights',
    )
    .option('--hidden <n>', 'encoder hidden size (same as --dim)', positiveInt('--hidden'))
    .option('--layers <n>', 'encoder layers (default 2)', positiveInt('--layers'))
    .option('--heads <n>', 'attention heads (default 4; must divide the hidden size)', positiveInt('--heads'))
    .option('--intermediate <n>', 'feed-forward width (default 4 × hidden)', positiveInt('--intermediate'))
    .option(
      '--vocab <n>',
      'vocabulary size: keeps the first N tokens of the fixture vocabulary, which is ordered [PAD] [UNK] [CLS] [SEP] [MASK], ' +
        'CJK punctuation, ASCII, full-width forms, ## word pieces, then CJK Unified Ideographs U+4E00–U+9FFF in code-point order ' +
        '(21,226 tokens in all; 21128 — bge-large-zh\'s size — drops only the last 98 ideographs, U+9F9E onwards)',
      positiveInt('--vocab'),
    )
    .option('--max-tokens <n>', 'model_max_length and position embeddings (default 512)', positiveInt('--max-tokens'))
    .option('--no-quantized', 'with --encoder: skip onnx/model_quantized.onnx')
    .option(
      '--kind <kind>',
      'clip: a CLIP-style dual encoder (onnx/text_model.onnx, onnx/vision_model.onnx, preprocessor_config.json) for the clip embedder and image indexes — ' +
        'a stand-in whose towers share only colour (红/绿/蓝 ↔ a page\'s tint); --dim, --seed, --vocab, --max-tokens (default 77) apply. ' +
        'causal-lm: a GPT-2-shaped causal LM (onnx/model.onnx with logits) for the compress method\'s token scorer — a seeded bigram stand-in whose function characters are predictable; --dim (default 32), --seed, --vocab, --max-tokens (default 2048) apply',
      choice('--kind', ['clip', 'causal-lm']),
    )
    .option('--image-size <n>', 'with --kind clip: side of the square pages are resized to (default 64)', positiveInt('--image-size'))
    .addHelpText(
      'after',
      '\nExample (bge-large-zh shape, ~1.3 GB):\n  hisrag model fixture --out models/bge-large-shape --encoder --layers 24 --hidden 1024 --heads 16 --intermediate 4096 --vocab 21128' +
        '\nExample (bge-reranker-large\'s encoder shape, ~1.3 GB):\n  hisrag model fixture --out models/bge-reranker-large-shape --reranker --encoder --layers 24 --hidden 1024 --heads 16 --intermediate 4096 --vocab 21128',
    )
    .action(async (options: FixtureCommandOptions) => {
      if (options.seed !== undefined && !Number.isSafeInteger(options.seed)) throw new InputError('--seed: expected a non-negative integer');
      if (options.dim && options.hidden && options.dim !== options.hidden) throw new InputError('--dim and --hidden disagree');
      if (options.kind !== undefined) {
        if (options.encoder || options.reranker) throw new InputError(`--kind ${options.kind}: not with --encoder or --reranker`);
        if (options.kind === 'causal-lm') {
          if (options.imageSize !== undefined) throw new InputError('--image-size: only with --kind clip');
          const { generateCausalLmFixture } = await import('../../models/fixture/causalLmFixture.js');
          const info = await generateCausalLmFixture({ outDir: options.out, seed: options.seed, dim: options.hidden ?? options.dim, vocabSize: options.vocab, maxTokens: options.maxTokens });
          process.stdout.write(`causal-lm fixture model (generated stand-in: seeded bigram logits), dimension ${info.dim}, vocabulary ${info.vocabSize}: ${info.dir}\n`);
          for (const file of info.files) process.stdout.write(`  ${file}\n`);
          return;
        }
        const { generateClipFixture } = await import('../../models/fixture/clipFixture.js');
        const info = await generateClipFixture({
          outDir: options.out,
          seed: options.seed,
          dim: options.hidden ?? options.dim,
          imageSize: options.imageSize,
          vocabSize: options.vocab,
          maxTokens: options.maxTokens,
        });
        process.stdout.write(`clip fixture model (generated stand-in), dimension ${info.dim}, images ${info.imageSize}×${info.imageSize}, vocabulary ${info.vocabSize}: ${info.dir}\n`);
        for (const file of info.files) process.stdout.write(`  ${file}\n`);
        return;
      }
      // Loaded on use so that the CLI starts fast.
      const { generateFixtureModel } = await import('../../embedding/fixture/generateFixtureModel.js');
      const { generateRerankerFixture } = await import('../../rerank/fixture/generateRerankerFixture.js');
      const { createProgress } = await import('../../progress/progress.js');
      const progress = createProgress({ label: 'writing tensors', unit: 'tensors', silent: !options.encoder });
      let total = 0;
      let finished = 0; // tensors of files already complete
      const generate = (async (o: Parameters<typeof generateFixtureModel>[0], onProgress: Parameters<typeof generateFixtureModel>[1]) => {
        if (!options.reranker) return generateFixtureModel(o, onProgress);
        const info = await generateRerankerFixture({ ...o, kind: o.kind === 'bert' ? 'bert' : 'coverage' }, onProgress);
        return { ...info, kind: `cross-encoder ${info.kind}` };
      });
      const info = await generate(
        {
          outDir: options.out,
          seed: options.seed,
          kind: options.encoder ? 'bert' : 'mean',
          dim: options.hidden ?? options.dim,
          layers: options.layers,
          heads: options.heads,
          intermediate: options.intermediate,
          vocabSize: options.vocab,
          maxTokens: options.maxTokens,
          quantized: options.quantized,
        },
        ({ done, total: inFile }) => {
          if (done === 1) progress.setTotal((total = finished + inFile) + (options.quantized && finished === 0 ? inFile : 0));
          progress.tick();
          if (done === inFile) finished = total;
        },
      );
      progress.stop();
      process.stdout.write(`${info.kind} fixture model, dimension ${info.dim}, vocabulary ${info.vocabSize}: ${info.dir}\n`);
      for (const file of info.files) process.stdout.write(`  ${file}\n`);
    });
}
