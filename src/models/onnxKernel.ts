import onnxProto from 'onnx-proto';
import ort from 'onnxruntime-node';
import pLimit from 'p-limit';
import type { OnnxNode, OnnxValueInfo } from './fixture/onnxGraph.js';

const { onnx } = onnxProto;

/**
 * A few ONNX nodes with symbolic dimensions, built in memory and run on onnxruntime's CPU kernels (the
 * runtime already installed with transformers.js) one call at a time: the session already uses every core.
 */
export async function onnxKernel(graph: { name: string; node: OnnxNode[]; input: OnnxValueInfo[]; output: OnnxValueInfo[] }, threads?: number) {
  const model = onnx.ModelProto.encode({ irVersion: 7, opsetImport: [{ domain: '', version: 13 }], producerName: 'hisrag', graph }).finish();
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: 'all',
    ...(threads && { intraOpNumThreads: threads }),
    interOpNumThreads: 1,
    // Threads sleep between calls instead of spinning: calls come one at a time, and the machine is
    // shared with the embedder and other processes (spinning halved search throughput here under load).
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  const serial = pLimit(1);
  return {
    /** The float output `output` on the inputs `feeds()` builds, once every earlier call has ended. */
    run: (feeds: () => Record<string, ort.Tensor>, output: string): Promise<Float32Array> =>
      serial(async () => (await session.run(feeds()))[output]!.data as Float32Array),
    close: () => session.release(),
  };
}
export type OnnxKernel = Awaited<ReturnType<typeof onnxKernel>>;
