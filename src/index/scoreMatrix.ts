import onnxProto from 'onnx-proto';
import ort from 'onnxruntime-node';
import { valueInfo } from '../models/fixture/onnxGraph.js';
import { onnxKernel, type OnnxKernel } from '../models/onnxKernel.js';

const { onnx } = onnxProto;

/**
 * `scores = queries · rowsᵀ` through onnxruntime's CPU Gemm (blocked, vectorised, multi-threaded), the
 * kernel already installed with transformers.js; one Gemm node with symbolic dimensions per dimension.
 */
export class ScoreMatrix {
  private constructor(
    private readonly kernel: OnnxKernel,
    readonly dimension: number,
  ) {}

  static async create(dimension: number, threads?: number): Promise<ScoreMatrix> {
    const graph = {
      name: 'scores',
      node: [{ opType: 'Gemm', input: ['queries', 'rows'], output: ['scores'], attribute: [{ name: 'transB', type: onnx.AttributeProto.AttributeType.INT, i: 1 }] }],
      input: [valueInfo('queries', 'float', ['q', dimension]), valueInfo('rows', 'float', ['n', dimension])],
      output: [valueInfo('scores', 'float', ['q', 'n'])],
    };
    return new ScoreMatrix(await onnxKernel(graph, threads), dimension);
  }

  /** Scores of `q` queries (row-major `queries`, q × d) against `n` rows (row-major `rows`, n × d), q × n row-major. */
  multiply(queries: Float32Array, q: number, rows: Float32Array, n: number): Promise<Float32Array> {
    const d = this.dimension;
    return this.kernel.run(
      () => ({
        queries: new ort.Tensor('float32', queries.subarray(0, q * d), [q, d]),
        rows: new ort.Tensor('float32', rows.subarray(0, n * d), [n, d]),
      }),
      'scores',
    );
  }

  close(): Promise<void> {
    return this.kernel.close();
  }
}
