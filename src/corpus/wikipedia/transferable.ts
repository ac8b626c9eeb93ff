/**
 * A typed array whose memory may be handed to another thread: itself when it owns its whole buffer,
 * else a copy (small Buffers share Node's pool, and transferring it corrupts the heap).
 */
export function ownedView<T extends Uint8Array | Uint32Array | Float32Array | Float64Array | BigUint64Array>(view: T): T {
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && view.buffer instanceof ArrayBuffer) return view;
  return view.slice() as T;
}
