import onnxProto from 'onnx-proto';
import ort from 'onnxruntime-node';

const { onnx } = onnxProto;

/**
 * `scores = queries · rowsᵀ` through onnxruntime's CPU Gemm (blocked, vectorised, multi-threaded), the
 * kernel already installed with transformers.js; one Gemm node with symbolic dimensions per dimension.
 */
export class ScoreMatrix {
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly dimension: number,
  ) {}

  static async create(dimension: number, threads?: number): Promise<ScoreMatrix> {
    const f = onnx.TensorProto.DataType.FLOAT;
    const info = (name: string, dims: Array<string | number>) => ({
      name,
      type: { tensorType: { elemType: f, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } },
    });
    const model = onnx.ModelProto.encode({
      irVersion: 7,
      opsetImport: [{ domain: '', version: 13 }],
      producerName: 'hisrag',
      graph: {
        name: 'scores',
        node: [{ opType: 'Gemm', input: ['queries', 'rows'], output: ['scores'], attribute: [{ name: 'transB', type: onnx.AttributeProto.AttributeType.INT, i: 1 }] }],
        input: [info('queries', ['q', dimension]), info('rows', ['n', dimension])],
        output: [info('scores', ['q', 'n'])],
      },
    }).finish();
    const session = await ort.InferenceSession.create(model, {
      graphOptimizationLevel: 'all',
      ...(threads && { intraOpNumThreads: threads }),
      interOpNumThreads: 1,
      // Threads sleep between products instead of spinning: searches come one at a time, and the
      // machine is shared with the embedder and other processes (spinning halved throughput here under load).
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
    return new ScoreMatrix(session, dimension);
  }

  /** Scores of `q` queries (row-major `queries`, q × d) against `n` rows (row-major `rows`, n × d), q × n row-major. */
  multiply(queries: Float32Array, q: number, rows: Float32Array, n: number): Promise<Float32Array> {
    const d = this.dimension;
    const run = async () => {
      const result = await this.session.run({
        queries: new ort.Tensor('float32', queries.subarray(0, q * d), [q, d]),
        rows: new ort.Tensor('float32', rows.subarray(0, n * d), [n, d]),
      });
      return result.scores!.data as Float32Array;
    };
    // One product at a time: the session already uses every core.
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
