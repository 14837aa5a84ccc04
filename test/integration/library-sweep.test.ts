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
