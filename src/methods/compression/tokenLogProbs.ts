import onnxProto from 'onnx-proto';
import ort from 'onnxruntime-node';
import { valueInfo } from '../../models/fixture/onnxGraph.js';
import { onnxKernel, type OnnxKernel } from '../../models/onnxKernel.js';

const { onnx } = onnxProto;

/**
 * log p(target_i) = log_softmax(logits_i)[target_i] for rows of next-token logits ([s, V] → [s]),
 * through onnxruntime's LogSoftmax and GatherElements instead of a JS loop: a vocabulary of 150k
 * (Qwen) or 21k (the fixture) makes the softmax the costly part of scoring a passage (a JS loop took
 * 4× the LM's own forward pass here). The model is two nodes with symbolic dimensions, built in
 * memory once, as `index/scoreMatrix.ts` builds its Gemm.
 */
export class TokenLogProbs {
  private constructor(private readonly kernel: OnnxKernel) {}

  static async create(threads?: number): Promise<TokenLogProbs> {
    const axis1 = [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 1 }];
    const graph = {
      name: 'token_log_probs',
      node: [
        { opType: 'LogSoftmax', input: ['logits'], output: ['log_probs'], attribute: axis1 },
        { opType: 'GatherElements', input: ['log_probs', 'targets'], output: ['target_log_probs'], attribute: axis1 },
      ],
      input: [valueInfo('logits', 'float', ['s', 'v']), valueInfo('targets', 'int64', ['s', 1])],
      output: [valueInfo('target_log_probs', 'float', ['s', 1])],
    };
    return new TokenLogProbs(await onnxKernel(graph, threads));
  }

  /** log p of `targets[i]` under row i of `logits` (row-major, targets.length × vocab). */
  compute(logits: Float32Array, vocab: number, targets: number[]): Promise<Float32Array> {
    const rows = targets.length;
    return this.kernel.run(
      () => ({
        logits: new ort.Tensor('float32', logits.subarray(0, rows * vocab), [rows, vocab]),
        targets: new ort.Tensor('int64', BigInt64Array.from(targets.map(BigInt)), [rows, 1]),
      }),
      'target_log_probs',
    );
  }

  close(): Promise<void> {
    return this.kernel.close();
  }
}
