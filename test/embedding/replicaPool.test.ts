import { describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../src/errors.js';
import { ReplicaPool } from '../../src/embedding/replicaPool.js';

const options = { maxConcurrency: 2, maxRetries: 2, retryBaseMs: 20, retryMaxMs: 100, what: 'embeddings server (model m)' };
const refused = () => new Error('connect ECONNREFUSED 127.0.0.1:1');
const pool = (...names: string[]) => new ReplicaPool(names.map((name) => ({ url: `http://${name}/v1`, client: name })), options);

/** A request that takes a turn of the event loop, so that several are in flight at once. */
const answer = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 5));

describe('ReplicaPool', () => {
  it('sends each request to the replica with the fewest in flight, at most maxConcurrency on each', async () => {
    const replicas = pool('a', 'b');
    let inFlight = 0;
    let most = 0;
    const seen = await Promise.all(
      Array.from({ length: 12 }, () =>
        replicas.run(async (client) => {
          most = Math.max(most, ++inFlight);
          const result = await answer(client);
          inFlight--;
          return result;
        }),
      ),
    );
    expect(most).toBe(4);
    expect(seen.filter((name) => name === 'a')).toHaveLength(6);
    expect(seen.filter((name) => name === 'b')).toHaveLength(6);
    expect(replicas.concurrency).toBe(4);
  });

  it('spreads one request at a time too (ties go to the replica idle longest)', async () => {
    const replicas = pool('a', 'b', 'c');
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(await replicas.run(async (client) => client));
    expect(seen).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('drains a failing replica, re-routes its requests at once, and gives it requests again after its cooldown', async () => {
    // A cooldown of 50 ms, longer than the 8 requests take on b alone.
    const replicas = new ReplicaPool(['a', 'b'].map((name) => ({ url: `http://${name}/v1`, client: name })), { ...options, retryBaseMs: 50, retryMaxMs: 50 });
    let aDown = true;
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        replicas.run(async (client) => {
          if (client === 'a' && aDown) throw refused();
          return answer(client);
        }),
      ),
    );
    expect(results.every((name) => name === 'b')).toBe(true);
    const [a] = replicas.replicas;
    expect(a!.streak).toBe(1);
    expect(a!.lastFailure).toMatch(/ECONNREFUSED/);
    // Back after its cooldown: the next requests reach it, and its first answer makes it healthy.
    aDown = false;
    await new Promise((resolve) => setTimeout(resolve, 60));
    const later = await Promise.all(Array.from({ length: 4 }, () => replicas.run(async (client) => answer(client))));
    expect(later).toContain('a');
    expect(a!.streak).toBe(0);
  });

  it('throws a request error (400) as it is, without trying another replica', async () => {
    const replicas = pool('a', 'b');
    let calls = 0;
    const bad = Object.assign(new Error('400 input must be a string'), { status: 400 });
    await expect(
      replicas.run(async () => {
        calls++;
        throw bad;
      }),
    ).rejects.toBe(bad);
    expect(calls).toBe(1);
  });

  it('gives up after maxRetries retries while every replica fails, naming each with its last failure', async () => {
    const replicas = pool('a', 'b');
    const error = await replicas
      .run(async (client) => {
        throw client === 'a' ? refused() : Object.assign(new Error('503 overloaded'), { status: 503 });
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toBe(
      'embeddings server (model m): every one of its 2 replicas is unavailable (4 attempts failed): ' +
        'http://a/v1 (connect ECONNREFUSED 127.0.0.1:1); http://b/v1 (503 overloaded)',
    );
    // a fails, b takes over and fails; then two retries, one on each after its cooldown.
    expect(replicas.replicas.map((r) => r.requests)).toEqual([2, 2]);
  });

  it('names the endpoint when it is the only one', async () => {
    const replicas = pool('a');
    await expect(replicas.run(async () => Promise.reject(refused()))).rejects.toThrow(
      'embeddings server (model m) at http://a/v1 is unavailable: 3 attempts failed (last: connect ECONNREFUSED 127.0.0.1:1)',
    );
  });

  it('stops waiting when its signal aborts', async () => {
    const replicas = new ReplicaPool([{ url: 'http://a/v1', client: 'a' }], { ...options, maxConcurrency: 1 });
    const held = replicas.run(() => new Promise((resolve) => setTimeout(() => resolve('first'), 50)));
    const controller = new AbortController();
    const waiting = replicas.run(async (client) => client, controller.signal);
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(await held).toBe('first');
  });
});
