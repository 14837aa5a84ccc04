import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveBackend, runLoop } from '../../src/index.ts';
import type { MarkSelector } from '../../src/process/marked-processes.ts';
import { fakeConfig, makeWorkspace, readRecords } from '../helpers/workspace.ts';

describe('runLoop sweeps through its injected effect (any platform)', () => {
  it("sweeps the run's marks after the agent, after the gates and at the end, and records what was killed", async () => {
    const dir = makeWorkspace({
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}gates:\n  validate: "true"\n`,
      'fake-agent.yml': 'turns:\n  - do: [{ print: done }]\n',
    });
    const { config } = loadConfig({ file: join(dir, 'ralph.yml'), cwd: dir });
    const calls: MarkSelector[] = [];
    const result = await runLoop({
      workspace: dir,
      config,
      prompt: 'work',
      backend: resolveBackend(config.cli.backend, config),
      sweep: async (select) => {
        calls.push(select);
        return calls.length === 1 ? [{ pid: 4242, command: 'sleep 300' }] : [];
      },
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
    const { config } = loadConfig({ file: join(dir, 'ralph.yml'), cwd: dir });
    const calls: MarkSelector[] = [];
    const result = await runLoop({
      workspace: dir,
      config,
      prompt: 'work',
      backend: resolveBackend(config.cli.backend, config),
      sweep: async (select) => {
        calls.push(select);
        return [];
      },
    });
    expect(calls).toEqual([{ runId: result.runId }, { runId: result.runId }]);
  });
});

describe('runLoop at the start of a run: the earlier run', () => {
  async function runOnce(dir: string, calls: MarkSelector[], mode?: 'fresh') {
    const { config } = loadConfig({ file: join(dir, 'ralph.yml'), cwd: dir });
    return runLoop({
      workspace: dir,
      config,
      prompt: 'work',
      backend: resolveBackend(config.cli.backend, config),
      mode,
      sweep: async (select) => {
        calls.push(select);
        return [];
      },
    });
  }

  it('is not looked for in the process table when it ended (it swept its mark as it ended); it is when it crashed', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: done }]\n',
    });
    const first = await runOnce(dir, []);
    const calls: MarkSelector[] = [];
    const second = await runOnce(dir, calls);
    expect(calls).toEqual([{ runId: second.runId }, { runId: second.runId }]);
    // A kill -9 leaves the run `running`: what it left behind is looked for.
    const statePath = join(dir, '.ralph', 'state.json');
    const state = JSON.parse(readFileSync(statePath, 'utf8'));
    writeFileSync(statePath, JSON.stringify({ ...state, status: 'running', pid: 2 ** 22 + 1 }));
    const afterCrash: MarkSelector[] = [];
    const third = await runOnce(dir, afterCrash, 'fresh');
    expect(afterCrash).toEqual([{ runId: second.runId }, { runId: third.runId }, { runId: third.runId }]);
    expect(first.runId).not.toBe(second.runId);
  });
});
