import type { Redis } from 'ioredis';
import type { Checkpoint } from './job-engine.ts';
import type { FleetKeys } from './redis-keys.ts';

/**
 * Writes a checkpoint only while the job's BullMQ lock holds this worker's token: one Lua script,
 * so the check and the writes are atomic. BullMQ itself fences only `moveToFinished`; without
 * this a paused ("zombie") worker that wakes up would overwrite the new owner's checkpoint.
 * KEYS: lock, files hash, run hash, fleet cost. ARGV: token, cost delta, file count, then
 * (path, op, content) per file, then (field, value) pairs of the run record ('' deletes).
 */
const FENCED_WRITE = `
local rcall = redis.call
if rcall('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[3])
local i = 4
for _ = 1, n do
  if ARGV[i + 1] == 'del' then rcall('HDEL', KEYS[2], ARGV[i]) else rcall('HSET', KEYS[2], ARGV[i], ARGV[i + 2]) end
  i = i + 3
end
while i < #ARGV do
  if ARGV[i + 1] == '' then rcall('HDEL', KEYS[3], ARGV[i]) else rcall('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
  i = i + 2
end
local delta = tonumber(ARGV[2])
if delta and delta > 0 then rcall('INCRBYFLOAT', KEYS[4], ARGV[2]) end
return 1
`;

/** Runs the fenced write; true when written, false when the lock is not (or no longer) ours. */
export async function fencedWrite(
  redis: Redis,
  keys: FleetKeys,
  runId: string,
  token: string,
  checkpoint: Checkpoint,
): Promise<boolean> {
  const files = Object.entries(checkpoint.files);
  const args: (string | Buffer)[] = [token, String(checkpoint.costDelta), String(files.length)];
  for (const [path, content] of files) args.push(path, content === null ? 'del' : 'set', content ?? '');
  for (const [field, value] of Object.entries(checkpoint.run))
    args.push(field, value === null || value === undefined ? '' : String(value));
  const written = await redis.eval(
    FENCED_WRITE,
    4,
    keys.lock(runId),
    keys.files(runId),
    keys.run(runId),
    keys.cost,
    ...args,
  );
  return written === 1;
}
