import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isPidAlive, liveGroupMembers, probeSignal } from '../../src/process/pids.ts';

// After every iteration Ralph asks whether the agent's group is gone (it nearly always is): the
// answer ESRCH comes back as a code, and the stack trace limit of the process is left as it was.

describe('probeSignal', () => {
  it('says null for a live process or group, ESRCH once a group and its leader are gone', async () => {
    const child = spawn('sh', ['-c', 'exit 0'], { detached: true, stdio: 'ignore' });
    const pid = child.pid as number;
    await once(child, 'exit');
    const limit = Error.stackTraceLimit;
    expect(probeSignal(process.pid)).toBeNull();
    const live = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    expect(probeSignal(-(live.pid as number))).toBeNull();
    live.kill();
    expect(probeSignal(-pid)).toBe('ESRCH');
    expect(probeSignal(pid)).toBe('ESRCH');
    expect(Error.stackTraceLimit).toBe(limit);
    expect(isPidAlive(pid)).toBe(false);
    expect(liveGroupMembers(pid)).toEqual([]);
  });
});
