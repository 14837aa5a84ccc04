import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fencedWrite } from '../../src/fleet/fenced-write.ts';
import { fleetKeys } from '../../src/fleet/redis-keys.ts';
import { hasRedisServer, startRedis, type TestRedis } from '../helpers/redis-server.ts';

// The Lua check-and-set itself, without the worker's other guards (lock watch, renewal events),
// which in a real zombie usually notice first.

const d = hasRedisServer ? describe : describe.skip;
if (!hasRedisServer)
  it.skip('needs redis-server (apt-get install redis-server; .ci/run installs it)', () => {});

d('fenced checkpoint write', () => {
  let redis: TestRedis;
  let client: Redis;
  const keys = fleetKeys('fence-test');
  const run = 'run-1';
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    client.disconnect();
    await redis.stop();
  });

  it('writes only while the lock holds the token: a zombie is rejected and changes nothing', async () => {
    await client.set(keys.lock(run), 'worker-a:1', 'PX', 10_000);
    const ok = await fencedWrite(client, keys, run, 'worker-a:1', {
      files: { '.ralph/state.json': '{"iterations":1}', '.ralph/old.txt': 'x' },
      run: { state: 'running', iteration: 1, worker: 'a' },
      costDelta: 0.5,
    });
    expect(ok).toBe(true);
    // Another worker took the job over: the lock now carries its token.
    await client.set(keys.lock(run), 'worker-b:7', 'PX', 10_000);
    const zombie = await fencedWrite(client, keys, run, 'worker-a:1', {
      files: { '.ralph/state.json': '{"iterations":2}', '.ralph/old.txt': null },
      run: { iteration: 2, worker: 'a' },
      costDelta: 0.5,
    });
    expect(zombie).toBe(false);
    expect(await client.hgetall(keys.files(run))).toEqual({
      '.ralph/state.json': '{"iterations":1}',
      '.ralph/old.txt': 'x',
    });
    expect(await client.hgetall(keys.run(run))).toEqual({ state: 'running', iteration: '1', worker: 'a' });
    expect(Number(await client.get(keys.cost))).toBe(0.5);
    // The owner writes; a null deletes a file and a field.
    await client.hset(keys.run(run), 'message', 'handed over');
    const owner = await fencedWrite(client, keys, run, 'worker-b:7', {
      files: { '.ralph/old.txt': null },
      run: { worker: 'b', message: null },
      costDelta: 0.25,
    });
    expect(owner).toBe(true);
    expect(Object.keys(await client.hgetall(keys.files(run)))).toEqual(['.ralph/state.json']);
    expect(await client.hgetall(keys.run(run))).toEqual({ state: 'running', iteration: '1', worker: 'b' });
    expect(Number(await client.get(keys.cost))).toBe(0.75);
  });

  it('rejects every write once the lock expired (nobody holds the job)', async () => {
    await client.del(keys.lock(run));
    expect(
      await fencedWrite(client, keys, run, 'worker-b:7', { files: {}, run: { state: 'x' }, costDelta: 0 }),
    ).toBe(false);
    expect((await client.hgetall(keys.run(run))).state).toBe('running');
  });
});
