import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { recordedAgentGroup } from '../../src/engine/context/force-signal.ts';
import { processInfo } from '../../src/process/pids.ts';
import type { LoopState } from '../../src/state/loop-state.ts';

/** A state whose iteration in flight records this agent pid and start time (nothing else is read). */
const stateWith = (agent_pid: number | null, agent_start_time: string | null = null) =>
  ({ current: { agent_pid, agent_start_time } }) as unknown as LoopState;

describe('recordedAgentGroup: the agent group a stop may kill, from a state the agent can rewrite', () => {
  it('is the recorded group while its leader is the recorded process', () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
      detached: true,
      stdio: 'ignore',
    });
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    const pid = child.pid as number;
    const start = processInfo(pid)?.startTime as string;
    expect(start).toBeDefined();
    expect(recordedAgentGroup(stateWith(pid, start))).toBe(pid);
  });

  it('is nothing for a reused pid, no pid, every process (kill -1) or Ralph’s own group', () => {
    const own = processInfo(process.pid);
    expect(recordedAgentGroup(stateWith(process.pid, '1'))).toBeUndefined();
    expect(recordedAgentGroup(stateWith(null))).toBeUndefined();
    expect(recordedAgentGroup(stateWith(0))).toBeUndefined();
    expect(recordedAgentGroup(stateWith(1))).toBeUndefined();
    expect(recordedAgentGroup(stateWith(-5))).toBeUndefined();
    expect(recordedAgentGroup(stateWith(own?.pgid as number))).toBeUndefined();
  });
});
