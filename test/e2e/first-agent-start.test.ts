import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWithGitLog } from '../helpers/git-workspace.ts';
import { makeWorkspace, readState, runRalph } from '../helpers/workspace.ts';

// Issue 22, point 8: every git process Ralph starts forks its whole process first (a few ms each),
// so the ones that can wait run once the agent does. Counted, not timed.
describe('ralph run in a git repository, before its first agent', () => {
  it('asks git only where the repository is, its status and its config; the watch is set up while the agent runs', async () => {
    const { log, result } = await runWithGitLog(['run', '-q', '--max-iterations', '2']);
    expect(result.code, result.stderr).toBe(2);
    // `git -C <dir>`, the runner's hardening (--no-pager, -c …), then the subcommand.
    const subcommand = (line: string) =>
      line.replace(/^git -C \S+ (?:--no-pager |-c \S+ )*/, '').split(' ')[0];
    const agentAt = log.indexOf('agent');
    // The layout first; then, side by side, the status and the config's program-running settings
    // (taken before any agent can change them).
    const before = log.slice(0, agentAt).map(subcommand);
    expect(before[0]).toBe('rev-parse');
    expect(before.slice(1).sort()).toEqual(['config', 'status']);
    // The ignored directories and the config, listed for the watch, once the agent ran.
    const after = log.slice(agentAt + 1).map(subcommand);
    expect(after).toContain('ls-files');
    expect(after).toContain('config');
    expect(log.filter((line) => line === 'agent')).toHaveLength(2);
  });

  it('outside any repository, starts no git process at all', async () => {
    const { log, result } = await runWithGitLog(['run', '-q', '--max-iterations', '1'], {
      repository: false,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(log.filter((line) => line !== '')).toEqual(['agent']);
  });
});

describe('ralph run, what waits until its first agent runs', () => {
  it('prunes old run directories (logs.keep_runs) once the agent runs, not before it', async () => {
    const dir = makeWorkspace({
      'agent.sh': '#!/bin/sh\ntrue\n',
      'ralph.yml':
        'event_loop:\n  prompt: "no-op"\n  max_idle_iterations: 0\ncli:\n  backend: custom\n  command: ./agent.sh\n  prompt_mode: stdin\nlogs:\n  keep_runs: 1\n',
    });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    for (const args of [
      ['run', '-q', '--max-iterations', '1'],
      ['run', '-q', '--fresh', '--max-iterations', '1'],
    ]) {
      const r = await runRalph(args, dir);
      expect(r.code, r.stderr).toBe(2);
    }
    const runs = readdirSync(join(dir, '.ralph', 'runs'));
    expect(runs).toEqual([readState(dir).run_id]);
    // The run's own event stream: the agent started, then the old directory went.
    const events = readFileSync(join(dir, '.ralph', 'runs', runs[0] as string, 'stream.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).event);
    const spawned = events.findIndex((e) => e.type === 'agent.spawned');
    const pruned = events.findIndex((e) => e.type === 'notice' && /oldest run directory/.test(e.message));
    expect(spawned).toBeGreaterThan(0);
    expect(pruned).toBeGreaterThan(spawned);
  });
});
