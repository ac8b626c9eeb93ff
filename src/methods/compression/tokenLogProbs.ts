import onnxProto from 'onnx-proto';
import ort from 'onnxruntime-node';

const { onnx } = onnxProto;

/**
 * log p(target_i) = log_softmax(logits_i)[target_i] for rows of next-token logits ([s, V] → [s]),
 * through onnxruntime's LogSoftmax and GatherElements instead of a JS loop: a vocabulary of 150k
 * (Qwen) or 21k (the fixture) makes the softmax the costly part of scoring a passage (a JS loop took
 * 4× the LM's own forward pass here). The model is two nodes with symbolic dimensions, built in
 * memory once, as `index/scoreMatrix.ts` builds its Gemm.
 */
export class TokenLogProbs {
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(private readonly session: ort.InferenceSession) {}

  static async create(threads?: number): Promise<TokenLogProbs> {
    const info = (name: string, type: number, dims: Array<string | number>) => ({
      name,
      type: { tensorType: { elemType: type, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } },
    });
    const F = onnx.TensorProto.DataType.FLOAT;
    const I = onnx.TensorProto.DataType.INT64;
    const axis1 = [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 1 }];
    const model = onnx.ModelProto.encode({
      irVersion: 7,
      opsetImport: [{ domain: '', version: 13 }],
      producerName: 'hisrag',
      graph: {
        name: 'token_log_probs',
        node: [
          { opType: 'LogSoftmax', input: ['logits'], output: ['log_probs'], attribute: axis1 },
          { opType: 'GatherElements', input: ['log_probs', 'targets'], output: ['target_log_probs'], attribute: axis1 },
        ],
        input: [info('logits', F, ['s', 'v']), info('targets', I, ['s', 1])],
        output: [info('target_log_probs', F, ['s', 1])],
      },
    }).finish();
    const session = await ort.InferenceSession.create(model, {
      graphOptimizationLevel: 'all',
      ...(threads && { intraOpNumThreads: threads }),
      interOpNumThreads: 1,
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
    return new TokenLogProbs(session);
  }

  /** log p of `targets[i]` under row i of `logits` (row-major, targets.length × vocab). */
  compute(logits: Float32Array, vocab: number, targets: number[]): Promise<Float32Array> {
    const run = async () => {
      const rows = targets.length;
      const result = await this.session.run({
        logits: new ort.Tensor('float32', logits.subarray(0, rows * vocab), [rows, vocab]),
        targets: new ort.Tensor('int64', BigInt64Array.from(targets.map(BigInt)), [rows, 1]),
      });
      return result.target_log_probs!.data as Float32Array;
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
