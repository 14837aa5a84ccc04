import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentStub, ranLog, stubBin } from '../helpers/agent-stubs.ts';
import { initGitRepo, subjects } from '../helpers/git-workspace.ts';
import { addTasks, makeParallelWorkspace } from '../helpers/parallel-workspace.ts';
import { makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

// The built CLI on configs written in ralph-orchestrator's documented format: they validate with
// their warnings and notes, and their loops route hats to completion.

/** The planner asks for a build, then completes once it is built; the builder builds. */
const WORK = [
  'case "$RALPH_HAT" in',
  '  builder) echo built > built.txt; ralph emit build.done ;;',
  '  *) if [ -f built.txt ]; then ralph emit LOOP_COMPLETE; else ralph emit build.task; fi ;;',
  'esac',
].join('\n');

/** v1 flat keys, keys Ralph ignores, a hat's subscribes_to and a hat's backend in its object form. */
const ORCHESTRATOR_YML = [
  'prompt_file: PROMPT.md',
  'max_iterations: 5',
  'completion_promise: LOOP_COMPLETE',
  'cli:',
  '  backend: custom',
  '  command: ./agent.sh',
  '  pty_mode: true',
  '  pty_interactive: false',
  '  idle_timeout_secs: 30',
  'event_loop:',
  '  checkpoint_interval: 5',
  '  idle_timeout_secs: 1800',
  'hats:',
  '  planner:',
  '    name: Planner',
  '    subscribes_to: [task.start, build.done]',
  '    publishes: [build.task, LOOP_COMPLETE]',
  '    instructions: Plan.',
  '  builder:',
  '    name: Builder',
  '    triggers: [build.task]',
  '    publishes: [build.done]',
  '    instructions: Build.',
  '    backend:',
  '      type: codex',
  '      args: [--hat-arg]',
  '',
].join('\n');

function executable(dir: string, name: string, script: string): void {
  writeFileSync(join(dir, name), script);
  chmodSync(join(dir, name), 0o755);
}

describe('a ralph-orchestrator config through the built CLI', () => {
  it('validates with one warning per ignored key and a note per mapped key, then runs its hats to completion', async () => {
    const dir = makeWorkspace({ 'PROMPT.md': 'build it\n', 'ralph.yml': ORCHESTRATOR_YML });
    executable(dir, 'agent.sh', agentStub('custom', WORK));
    const env = { PATH: `${stubBin({ codex: agentStub('codex', WORK) })}:${process.env.PATH}` };

    const v = await runRalph(['config', 'validate'], dir, env);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain('ralph.yml: valid (backend custom, 2 hats)');
    const warned = v.stdout.split('\n').filter((l) => l.startsWith('  ! '));
    expect(warned.map((l) => l.split(': ')[1])).toEqual([
      'cli.pty_mode',
      'cli.pty_interactive',
      'cli.idle_timeout_secs',
      'event_loop.checkpoint_interval',
      'event_loop.idle_timeout_secs',
    ]);
    for (const note of [
      'ralph.yml:1:1: prompt_file: v1 key prompt_file read as event_loop.prompt_file',
      'ralph.yml:2:1: max_iterations: v1 key max_iterations read as event_loop.max_iterations',
      'ralph.yml:16:5: hats.planner.subscribes_to: v1 key subscribes_to read as hats.planner.triggers',
      'ralph.yml:24:5: hats.builder.backend: backend {type: codex, …} read as backend codex, args [--hat-arg]',
    ])
      expect(v.stdout).toContain(`  · ${note}\n`);
    const strict = await runRalph(['config', 'validate', '--strict'], dir, env);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('ralph.yml:7:3: cli.pty_mode: ralph-orchestrator key:');

    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    // The warnings again at the run's start, once each (the console's warnings go to stderr).
    for (const key of ['cli.pty_mode', 'event_loop.checkpoint_interval', 'event_loop.idle_timeout_secs'])
      expect(
        r.stderr.split(`ralph: warning: ralph.yml:`).filter((l) => l.includes(`: ${key}: `)),
      ).toHaveLength(1);
    expect(readRecords(dir).map((x) => [x.hat, x.backend])).toEqual([
      ['planner', 'custom'],
      ['builder', 'codex'],
      ['planner', 'custom'],
    ]);
    expect(ranLog(dir)[1]).toMatch(/^codex exec .*--hat-arg/);
    // A second start reads the config again (a config with warnings is not cached): it warns again.
    const again = await runRalph(['run', '--fresh'], dir, env);
    expect(again.stderr).toContain(': cli.pty_mode: ralph-orchestrator key:');
  });
});

describe('a ralph-orchestrator config run with --parallel', { timeout: 120_000 }, () => {
  it('says its warnings once, before the workers start', async () => {
    const turn =
      '  - do:\n      - write: { path: alpha.txt, content: "a\\n" }\n      - print: LOOP_COMPLETE\n';
    const dir = makeParallelWorkspace(`turns:\n${turn}`, 'verbose: true\n');
    await addTasks(dir, ['Alpha']);
    const r = await runRalph(['run', '--parallel', '1', '--no-tui'], dir);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(
      r.stderr.match(/ralph: warning: ralph\.yml:\d+:1: verbose: ralph-orchestrator key: .*; ignored/g),
    ).toHaveLength(1);
  });
});

describe('stale loop: the same event three times', () => {
  const yml = [
    'event_loop:',
    '  prompt_file: PROMPT.md',
    '  max_iterations: 5',
    'cli:',
    '  backend: custom',
    '  command: ./agent.sh',
    'git:',
    '  commit: true',
    'hats:',
    '  builder:',
    '    triggers: [task.start, build.done]',
    '    publishes: [build.done]',
    '',
  ].join('\n');

  it('runs on while each iteration changes a file that Ralph commits', async () => {
    const dir = makeWorkspace({ 'PROMPT.md': 'x\n', 'ralph.yml': yml });
    executable(
      dir,
      'agent.sh',
      '#!/bin/sh\ncat > /dev/null\necho "$RALPH_ITERATION" > step.txt\nralph emit build.done same\n',
    );
    initGitRepo(dir);
    const r = await runRalph(['run'], dir);
    expect(readState(dir)).toMatchObject({ stop_reason: 'max_iterations', iterations: 5 });
    expect(r.code).toBe(2);
    expect(subjects(dir).filter((s) => s.startsWith('ralph:'))).toHaveLength(5);
  });

  it('still stops as stale_loop when the repeats change nothing', async () => {
    const dir = makeWorkspace({ 'PROMPT.md': 'x\n', 'ralph.yml': yml });
    executable(dir, 'agent.sh', '#!/bin/sh\ncat > /dev/null\nralph emit build.done same\n');
    initGitRepo(dir);
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'stale_loop', iterations: 3 });
    expect(readState(dir).stop_message).toContain('without changing a file or committing');
  });
});
