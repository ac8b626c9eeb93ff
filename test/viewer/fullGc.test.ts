import { describe, expect, it } from 'vitest';
import { fullGc } from '../../src/viewer/fullGc.js';

describe('fullGc (the background indexing keeps the heap near its live size)', () => {
  it('collects an object nothing refers to any more, at once', async () => {
    let target: object | null = { payload: new Array(1000).fill('x') };
    const ref = new WeakRef(target);
    target = null;
    // A WeakRef's target is kept until the end of the current job: let it end first.
    await new Promise((done) => setImmediate(done));
    fullGc();
    expect(ref.deref()).toBeUndefined();
  });

  it('keeps what is still referred to', async () => {
    const kept = { payload: [1, 2, 3] };
    const ref = new WeakRef(kept);
    await new Promise((done) => setImmediate(done));
    fullGc();
    expect(ref.deref()).toBe(kept);
  });
});
