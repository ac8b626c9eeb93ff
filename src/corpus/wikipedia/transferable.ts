/**
 * A typed array whose memory may be handed to another thread: itself when it owns its whole
 * ArrayBuffer, else a copy. Small Buffers (`Buffer.from`, `Buffer.concat` under 4 KiB) are views
 * into Node's shared allocation pool; transferring that pool detaches memory other Buffers still
 * use, which corrupts the heap (`free(): invalid pointer`).
 */
export function ownedView<T extends Uint8Array | Uint32Array | Float32Array | Float64Array | BigUint64Array>(view: T): T {
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && view.buffer instanceof ArrayBuffer) return view;
  return view.slice() as T;
}
