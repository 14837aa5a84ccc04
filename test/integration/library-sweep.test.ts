import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MarkSelector, SweepMarked } from '../../src/process/marked-processes.ts';
import { runLoopIn } from '../helpers/library-loop.ts';
import { fakeConfig, makeWorkspace, readRecords } from '../helpers/workspace.ts';

/** `runLoop` in `dir` with its sweep replaced by `sweep`. */
const runWithSweep = (dir: string, sweep: SweepMarked, mode?: 'fresh') => runLoopIn(dir, { sweep, mode });

/** A sweep that finds nothing and records what it was asked for in `calls`. */
const recordingSweep =
  (calls: MarkSelector[]): SweepMarked =>
  async (select) => {
    calls.push(select);
    return [];
  };

describe('runLoop sweeps through its injected effect (any platform)', () => {
  it("sweeps the run's marks after the agent, after the gates and at the end, and records what was killed", async () => {
    const dir = makeWorkspace({
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}gates:\n  validate: "true"\n`,
      'fake-agent.yml': 'turns:\n  - do: [{ print: done }]\n',
    });
    const calls: MarkSelector[] = [];
    const result = await runWithSweep(dir, async (select) => {
      calls.push(select);
      return calls.length === 1 ? [{ pid: 4242, command: 'sleep 300' }] : [];
    });
    expect(result.exitCode).toBe(2);
    expect(calls).toEqual([{ runId: result.runId }, { runId: result.runId }, { runId: result.runId }]);
    expect(readRecords(dir)[0]?.killed_processes).toEqual([{ pid: 4242, command: 'sleep 300' }]);
  });
});

describe('runLoop sweep without gates', () => {
  it('sweeps after the agent and at the end only: no gate ran, so nothing new can carry the mark', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: done }]\n',
    });
    const calls: MarkSelector[] = [];
    const result = await runWithSweep(dir, recordingSweep(calls));
    expect(calls).toEqual([{ runId: result.runId }, { runId: result.runId }]);
  });
});

describe('runLoop at the start of a run: the earlier run', () => {
  it('is not looked for in the process table when it ended (it swept its mark as it ended); it is when it crashed', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: done }]\n',
    });
    await runWithSweep(dir, recordingSweep([]));
    const calls: MarkSelector[] = [];
    const second = await runWithSweep(dir, recordingSweep(calls));
    expect(calls).toEqual([{ runId: second.runId }, { runId: second.runId }]);
    // A kill -9 leaves the run `running`: what it left behind is looked for.
    const statePath = join(dir, '.ralph', 'state.json');
    const state = JSON.parse(readFileSync(statePath, 'utf8'));
    writeFileSync(statePath, JSON.stringify({ ...state, status: 'running', pid: 2 ** 22 + 1 }));
    const afterCrash: MarkSelector[] = [];
    const third = await runWithSweep(dir, recordingSweep(afterCrash), 'fresh');
    expect(afterCrash).toEqual([{ runId: second.runId }, { runId: third.runId }, { runId: third.runId }]);
  });
});

describe('runLoop sweep before a wait for a person', () => {
  it('sweeps after each gate command and again right before the approval is asked', async () => {
    const dir = makeWorkspace({
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}gates:\n  validate: "true"\n  tests:\n    command: "true"\n  approval: before_complete\nhuman:\n  timeout_seconds: 0.2\n  on_timeout: continue\n`,
      'fake-agent.yml': 'turns:\n  - do: [{ print: LOOP_COMPLETE }]\n',
    });
    const calls: string[] = [];
    const result = await runWithSweep(dir, async () => {
      const questions = join(dir, '.ralph', 'control', 'questions.jsonl');
      calls.push(existsSync(questions) ? 'asked' : 'not asked');
      return calls.length === 4 ? [{ pid: 4243, command: 'sh src/daemon.sh' }] : [];
    });
    expect(result.exitCode).toBe(0);
    // The agent, the tests gate, the validate hook, the guard before the approval, the run's end.
    expect(calls).toEqual(['not asked', 'not asked', 'not asked', 'not asked', 'asked']);
    const [record] = readRecords(dir);
    expect(record?.approvals).toEqual([expect.objectContaining({ point: 'before_complete', by: 'timeout' })]);
    expect(record?.killed_processes).toEqual([{ pid: 4243, command: 'sh src/daemon.sh' }]);
  });
});
