import onnxProto from 'onnx-proto';
import ort from 'onnxruntime-node';
import { valueInfo } from '../models/fixture/onnxGraph.js';
import { onnxKernel } from '../models/onnxKernel.js';

const { onnx } = onnxProto;

/**
 * `scores = queries · rowsᵀ` through onnxruntime's CPU Gemm (blocked, vectorised, multi-threaded), the
 * kernel already installed with transformers.js; one Gemm node with symbolic dimensions per dimension.
 */
export async function createScoreMatrix(dimension: number, threads?: number) {
  const kernel = await onnxKernel(
    {
      name: 'scores',
      node: [{ opType: 'Gemm', input: ['queries', 'rows'], output: ['scores'], attribute: [{ name: 'transB', type: onnx.AttributeProto.AttributeType.INT, i: 1 }] }],
      input: [valueInfo('queries', 'float', ['q', dimension]), valueInfo('rows', 'float', ['n', dimension])],
      output: [valueInfo('scores', 'float', ['q', 'n'])],
    },
    threads,
  );
  const d = dimension;
  return {
    /** Scores of `q` queries (row-major `queries`, q × d) against `n` rows (row-major `rows`, n × d), q × n row-major. */
    multiply: (queries: Float32Array, q: number, rows: Float32Array, n: number): Promise<Float32Array> =>
      kernel.run(
        () => ({
          queries: new ort.Tensor('float32', queries.subarray(0, q * d), [q, d]),
          rows: new ort.Tensor('float32', rows.subarray(0, n * d), [n, d]),
        }),
        'scores',
      ),
    close: kernel.close,
  };
}
export type ScoreMatrix = Awaited<ReturnType<typeof createScoreMatrix>>;
