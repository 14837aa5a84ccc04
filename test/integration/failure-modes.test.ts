// Seed 002 "Failure Mode Testing": the eight scenarios, each driven through the CLI on a real git
// repository with the scripted agent.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, makeGitWorkspace, subjects } from '../helpers/git-workspace.ts';
import { makeWorkspace, pidAlive, readRecords, readState, runRalph } from '../helpers/workspace.ts';

/** A spec-style project: specs/, a build prompt, git commits, the plan marker, a health check on specs/. */
function project(script: string, extra: { config?: string; files?: Record<string, string> } = {}): string {
  return makeGitWorkspace({
    'specs/README.md': '# Specification Index\n',
    'specs/feature.md': '---\nstatus: active\n---\n# Feature\n',
    'PROMPT_build.md': 'Build the next task of IMPLEMENTATION_PLAN.md.\n',
    '.gitignore':
      '.ralph/state.json\n.ralph/loop.lock\n.ralph/logs/\n.ralph/runs/\n.ralph/events-*\n.ralph/current-events\n',
    'ralph.yml': [
      'event_loop:',
      '  prompt_file: PROMPT_build.md',
      '  max_iterations: 6',
      '  kill_grace_seconds: 0.5',
      'cli:',
      '  backend: fake',
      '  fake_script: fake-agent.yml',
      'completion:',
      '  marker: { file: IMPLEMENTATION_PLAN.md, text: PROJECT_COMPLETE }',
      'git:',
      '  commit: true',
      'health:',
      '  specs_dir: specs',
      extra.config ?? '',
    ].join('\n'),
    'fake-agent.yml': script,
    ...(extra.files ?? {}),
  });
}

/** The pid of the one agent a run with RALPH_DIAGNOSTICS=1 spawned, from its orchestration record. */
function spawnedAgentPid(dir: string): number {
  const root = join(dir, '.ralph', 'diagnostics');
  const [run] = readdirSync(root).filter((n) => n !== 'logs');
  const records = readFileSync(join(root, run!, 'orchestration.jsonl'), 'utf8')
    .trim()
    .split('\n');
  const spawned = records.map((l) => JSON.parse(l)).filter((x) => x.event === 'agent.spawned');
  expect(spawned).toEqual([expect.objectContaining({ pid: expect.any(Number) })]);
  return spawned[0].pid;
}

describe('seed 002 failure modes', () => {
  it('1. agent crashes mid-iteration: the dirty tree it leaves stops the next start, nothing is discarded', async () => {
    const dir = project(
      [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do: [{ write: { path: IMPLEMENTATION_PLAN.md, content: "# Plan\\n1. task\\n" } }, { result: { text: "Planned" } }]',
        '  - do: [{ write: { path: half-done.js, content: "// work in progress\\n" } }, { crash: true }]',
      ].join('\n'),
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    const state = readState(dir);
    expect(state.stop_reason).toBe('dirty_tree');
    expect(state.stop_message).toContain('half-done.js');
    expect(state.stop_message).toContain('never discards');
    expect(readRecords(dir).map((x) => x.verdict)).toEqual(['success', 'failure']);
    expect(readFileSync(join(dir, 'half-done.js'), 'utf8')).toContain('work in progress');
    expect(subjects(dir)).toEqual(['ralph: Planned', 'initial']);
    // The next `ralph run` refuses too, with the same explanation.
    const again = await runRalph(['run'], dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('uncommitted changes');
  });

  it('2. git push fails: 3 attempts, then a fatal exit with the commit kept locally', async () => {
    const remote = makeWorkspace();
    execFileSync('git', ['init', '-q', '--bare', remote]);
    const dir = project(
      'turns:\n  - do: [{ write: { path: a.txt, content: "a\\n" } }, { result: { text: "Add a.txt" } }]\n',
    );
    // Point origin at a path that does not exist: the network is down.
    git(dir, 'remote', 'add', 'origin', join(remote, 'gone.git'));
    const cfg = readFileSync(join(dir, 'ralph.yml'), 'utf8');
    writeFileSync(
      join(dir, 'ralph.yml'),
      cfg.replace('  commit: true', '  commit: true\n  push: true\n  push_retry_delay_seconds: 0.1'),
    );
    git(dir, 'commit', '-qam', 'push config');
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    const state = readState(dir);
    expect(state.stop_reason).toBe('push_failed');
    expect(state.stop_message).toContain('failed after 3 attempts');
    expect(state.stop_message).toContain('kept locally');
    expect(r.stderr.match(/git push failed \(attempt \d\/3\)/g)).toHaveLength(3);
    expect(subjects(dir)[0]).toBe('ralph: Add a.txt');
  });

  it('3. tests fail during an iteration: recorded, reported back, completion waits until they pass', async () => {
    const dir = project(
      [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do: [{ write: { path: IMPLEMENTATION_PLAN.md, content: "# Plan\\nPROJECT_COMPLETE\\n" } }, { write: { path: ok.flag, content: "no\\n" } }, { result: { text: "Claimed done too early" } }]',
        '  - do: [{ write: { path: ok.flag, content: "yes\\n" } }, { result: { text: "Fixed the failing test" } }]',
      ].join('\n'),
      { config: 'gates:\n  tests: { command: "grep -q yes ok.flag", report_file: TEST_REPORT.md }' },
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const records = readRecords(dir);
    expect(records.map((x) => x.gates.tests.passed)).toEqual([false, true]);
    expect(records[0]?.reason).toContain('the tests are failing');
    expect(records[1]?.verdict).toBe('complete');
    expect(readFileSync(join(dir, 'TEST_REPORT.md'), 'utf8')).toContain('Status: PASSED');
    const events = JSON.parse((await runRalph(['events', '--format', 'json'], dir)).stdout).map(
      (e: { topic: string }) => e.topic,
    );
    expect(events).toEqual(expect.arrayContaining(['tests.failed', 'tests.passed']));
  });

  it('4. the validation script fails: fatal at once, output in the log and on the console, work committed', async () => {
    const dir = project(
      'turns:\n  - do: [{ write: { path: b.txt, content: "b\\n" } }, { result: { text: "Add b.txt" } }]\n',
      {
        files: { '.ralph/validate.sh': '#!/bin/sh\necho "lint: 2 problems in b.txt"\nexit 3\n' },
      },
    );
    execFileSync('chmod', ['+x', join(dir, '.ralph', 'validate.sh')]);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'validate hook');
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    const state = readState(dir);
    expect(state.stop_reason).toBe('validation_failed');
    expect(state.iterations).toBe(1);
    expect(r.stdout + r.stderr).toContain('lint: 2 problems in b.txt');
    expect(readFileSync(join(dir, state.log_file), 'utf8')).toContain('lint: 2 problems in b.txt');
    expect(subjects(dir)[0]).toBe('ralph: Add b.txt');
    expect(readRecords(dir)[0]?.gates.validate).toMatchObject({ passed: false, exit_code: 3 });
  });

  it('5. the iteration timeout is exceeded: the agent is killed, fatal exit, no commit', async () => {
    const dir = project('turns:\n  - do: [{ write: { path: c.txt, content: "c\\n" } }, { hang: true }]\n');
    const cfg = readFileSync(join(dir, 'ralph.yml'), 'utf8').replace(
      '  kill_grace_seconds: 0.5',
      '  kill_grace_seconds: 0.5\n  iteration_timeout_seconds: 1\n  on_iteration_timeout: stop',
    );
    writeFileSync(join(dir, 'ralph.yml'), cfg);
    git(dir, 'commit', '-qam', 'timeout config');
    // The agent's pid as Ralph spawned it (diagnostics record it): under load the agent may not get
    // to write anything of its own within the 1 s.
    const r = await runRalph(['run'], dir, { RALPH_DIAGNOSTICS: '1' });
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'iteration_timeout' });
    expect(r.stderr).toContain(
      // a failed run says why on stderr
      'iteration timeout: the agent ran longer than 1s and was killed',
    );
    expect(readRecords(dir)[0]).toMatchObject({ killed_by: 'iteration_timeout', commit: null });
    expect(subjects(dir)[0]).toBe('timeout config');
    expect(pidAlive(spawnedAgentPid(dir))).toBe(false);
  });

  it('6. IMPLEMENTATION_PLAN.md deleted mid-loop: the next iteration recreates it, PROGRESS.md is kept', async () => {
    const dir = project(
      [
        'turns:',
        '  - when: { file_missing: IMPLEMENTATION_PLAN.md }',
        '    do: [{ write: { path: IMPLEMENTATION_PLAN.md, content: "# Plan\\n1. task one\\n2. task two\\n" } }, { result: { text: "Created the plan from specs" } }]',
        '  - when: { iteration: 2 }',
        '    do: [{ write: { path: PROGRESS.md, content: "# Progress Log\\n- [x] task one\\n" } }, { delete: IMPLEMENTATION_PLAN.md }, { result: { text: "Did task one" } }]',
        '  - do: [{ append: { path: IMPLEMENTATION_PLAN.md, content: "PROJECT_COMPLETE\\n" } }, { result: { text: "All done" } }]',
      ].join('\n'),
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    expect(readRecords(dir).map((x) => x.verdict)).toEqual(['success', 'success', 'success', 'complete']);
    expect(readFileSync(join(dir, 'PROGRESS.md'), 'utf8')).toContain('task one');
    expect(subjects(dir).slice(0, 2)).toEqual(['ralph: All done', 'ralph: Created the plan from specs']);
  });

  it('7. disk space: a warning when low, a fatal stop before the iteration when full', async () => {
    const script =
      'turns:\n  - do: [{ append: { path: d.txt, content: "d\\n" } }, { result: { text: "Add d" } }]\n';
    const low = project(script);
    writeFileSync(
      join(low, 'ralph.yml'),
      readFileSync(join(low, 'ralph.yml'), 'utf8').replace('  max_iterations: 6', '  max_iterations: 1'),
    );
    git(low, 'commit', '-qam', 'one iteration');
    const warned = await runRalph(['run'], low, { RALPH_HEALTH_DISK_FREE_BYTES: String(200 * 1024 * 1024) });
    expect(warned.code).toBe(2);
    expect(warned.stderr).toContain('low disk space');

    const full = project(script);
    const r = await runRalph(['run'], full, { RALPH_HEALTH_DISK_FREE_BYTES: '0' });
    expect(r.code).toBe(1);
    expect(readState(full)).toMatchObject({ stop_reason: 'health_check', iterations: 0 });
    expect(readState(full).stop_message).toContain('disk full');
    expect(existsSync(join(full, 'd.txt'))).toBe(false);
  });

  it('8. specs/ becomes unreadable: the health check stops the loop before the next iteration', async () => {
    const dir = project(
      [
        'turns:',
        '  - do:',
        // Root reads through chmod, so make specs/ really unreadable: a dangling symlink.
        '      - run: "mv specs specs.gone && ln -s specs.gone/nowhere specs"',
        '      - result: { text: "Moved specs" }',
      ].join('\n'),
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    const state = readState(dir);
    expect(state).toMatchObject({ stop_reason: 'health_check', iterations: 1 });
    expect(state.stop_message).toContain('specs');
  });
});

describe('git states Ralph refuses to start in', () => {
  const script = 'turns:\n  - do: [{ write: { path: x.txt, content: x } }]\n';

  it('refuses a detached HEAD and a merge in progress, touching nothing', async () => {
    const dir = project(script);
    git(dir, 'checkout', '-q', '--detach');
    const detached = await runRalph(['run'], dir);
    expect(detached.code).toBe(1);
    expect(detached.stderr).toContain('HEAD is detached');
    expect(existsSync(join(dir, '.ralph', 'state.json'))).toBe(false);

    git(dir, 'checkout', '-q', 'main');
    git(dir, 'checkout', '-q', '-b', 'other');
    writeFileSync(join(dir, 'specs', 'feature.md'), 'theirs\n');
    git(dir, 'commit', '-qam', 'theirs');
    git(dir, 'checkout', '-q', 'main');
    writeFileSync(join(dir, 'specs', 'feature.md'), 'ours\n');
    git(dir, 'commit', '-qam', 'ours');
    expect(() => git(dir, 'merge', '-q', 'other')).toThrow();
    const merging = await runRalph(['run'], dir);
    expect(merging.code).toBe(1);
    expect(merging.stderr).toContain('merge is in progress');
    expect(existsSync(join(dir, 'x.txt'))).toBe(false);
  });
});
