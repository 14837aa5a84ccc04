import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// `ralph hooks validate` on hooks written in ralph-orchestrator's format (its examples/hooks/minimal).

const MINIMAL = [
  'hooks:',
  '  enabled: true',
  '  defaults:',
  '    timeout_seconds: 30',
  '    max_output_bytes: 8192',
  '    suspend_mode: wait_for_resume',
  '  events:',
  '    pre.loop.start:',
  '      - name: env-guard',
  '        command: ["./scripts/env-guard.sh"]',
  '        on_error: block',
  '    post.loop.complete:',
  '      - name: notify',
  '        command: ["./scripts/notify.sh"]',
  '        on_error: warn',
  '',
].join('\n');

function workspace(yml: string, executable = true): string {
  const dir = makeWorkspace({
    'ralph.yml': yml,
    'scripts/env-guard.sh': '#!/bin/sh\nexit 0\n',
    'scripts/notify.sh': '#!/bin/sh\nexit 0\n',
  });
  if (executable) for (const f of ['env-guard.sh', 'notify.sh']) chmodSync(join(dir, 'scripts', f), 0o755);
  return dir;
}

const validate = (dir: string, ...flags: string[]) =>
  runCliInMemory(['hooks', 'validate', ...flags], { cwd: dir });

describe('ralph hooks validate', () => {
  it('passes ralph-orchestrator’s minimal example: one line, exit 0', async () => {
    const r = await validate(workspace(MINIMAL));
    expect(r).toMatchObject({ code: 0, stdout: 'ralph.yml: 2 hooks valid\n', stderr: '' });
  });

  it('says when hooks are configured but off', async () => {
    const r = await validate(workspace(MINIMAL.replace('enabled: true', 'enabled: false')));
    expect(r.stdout).toBe('ralph.yml: 2 hooks valid (hooks.enabled is false: they do not run)\n');
  });

  it('names each command that cannot run, each missing cwd and each repeated name at file:line:col, exit 1', async () => {
    const yml = `${MINIMAL}    pre.iteration.start:\n      - name: a\n        command: [no-such-program-here]\n        on_error: warn\n      - name: a\n        command: ["true"]\n        cwd: nowhere\n        on_error: warn\n`;
    const r = await validate(workspace(yml, false));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('ralph.yml: 4 hooks, 5 problems:');
    expect(r.stderr).toMatch(
      /ralph\.yml:10:18: hooks\.events\.pre\.loop\.start\.0\.command: command "\.\/scripts\/env-guard\.sh" cannot run \(not executable: .*env-guard\.sh\): make it executable/,
    );
    expect(r.stderr).toMatch(
      /ralph\.yml:14:18: hooks\.events\.post\.loop\.complete\.0\.command: .*notify\.sh/,
    );
    expect(r.stderr).toMatch(/ralph\.yml:18:18: .*command "no-such-program-here" cannot run \(not on PATH\)/);
    expect(r.stderr).toMatch(
      /ralph\.yml:20:15: hooks\.events\.pre\.iteration\.start\.1\.name: hook name "a" is used at \[0\] too/,
    );
    expect(r.stderr).toMatch(
      /ralph\.yml:22:14: hooks\.events\.pre\.iteration\.start\.1\.cwd: cwd .*nowhere is not a directory/,
    );
  });

  it('resolves a command from its cwd and its env PATH, as the hook will run', async () => {
    const dir = workspace(
      `${MINIMAL}    pre.iteration.start:\n      - name: local\n        command: ["./x.sh"]\n        cwd: tools\n        on_error: warn\n      - name: onpath\n        command: [y.sh]\n        env:\n          PATH: bin\n        on_error: warn\n`,
    );
    mkdirSync(join(dir, 'tools'));
    mkdirSync(join(dir, 'bin'));
    expect((await validate(dir)).code).toBe(1);
    for (const f of ['tools/x.sh', 'bin/y.sh']) makeExecutable(join(dir, f));
    expect(await validate(dir)).toMatchObject({ code: 0, stdout: 'ralph.yml: 4 hooks valid\n' });
  });

  it('refuses a timeout longer than the run may last', async () => {
    const yml = `event_loop:\n  max_runtime_seconds: 60\n${MINIMAL.replace('timeout_seconds: 30', 'timeout_seconds: 120')}`;
    const r = await validate(workspace(yml));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('timeout 120 s is longer than event_loop.max_runtime_seconds (60 s)');
  });

  it('reports a schema problem as the config errors are, with -c FILE', async () => {
    const dir = workspace('');
    const file = join(dir, 'ralph.hooks.yml');
    writeFileSync(file, MINIMAL.replace('        on_error: block\n', ''));
    const r = await validate(dir, '-c', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /ralph\.hooks\.yml:9:9: hooks\.events\.pre\.loop\.start\.0\.on_error: is required/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a misspelt phase-event is an unknown key with the phase-event meant', async () => {
    const r = await validate(workspace(MINIMAL.replace('pre.loop.start:', 'pre.loop.strat:')));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'ralph.yml:8:5: hooks.events.pre.loop.strat: unknown key "pre.loop.strat" — did you mean "pre.loop.start"?',
    );
  });

  it('--json: snake_case keys, every problem located; a schema problem too', async () => {
    const r = await validate(workspace(MINIMAL, false), '--json');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ pass: false, source: 'ralph.yml', hooks_enabled: true, checked_hooks: 2 });
    expect(report.problems[0]).toEqual({
      code: 'hooks.command_resolvable',
      message: expect.stringContaining('not executable'),
      file: 'ralph.yml',
      line: 10,
      col: 18,
      path: 'hooks.events.pre.loop.start.0.command',
      phase_event: 'pre.loop.start',
      hook: 'env-guard',
      command: './scripts/env-guard.sh',
    });
    const bad = await validate(workspace(MINIMAL.replace('on_error: warn', 'on_error: maybe')), '--json');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).problems).toEqual([
      expect.objectContaining({
        code: 'config.invalid',
        line: 15,
        path: 'hooks.events.post.loop.complete.0.on_error',
      }),
    ]);
    const good = await validate(workspace(MINIMAL), '--json');
    expect(JSON.parse(good.stdout)).toEqual({
      pass: true,
      source: 'ralph.yml',
      hooks_enabled: true,
      checked_hooks: 2,
      problems: [],
    });
  });
});

describe('the pre-flight of config validate and ralph run', () => {
  it('warns about each enabled hook that cannot run, and is not stopped by it', async () => {
    const yml = `cli:\n  backend: custom\n  command: /bin/true\nevent_loop:\n  prompt: x\n${MINIMAL}`;
    const r = await runCliInMemory(['config', 'validate'], { cwd: workspace(yml, false) });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /! hooks: hooks\.events\.pre\.loop\.start: hook env-guard: command "\.\/scripts\/env-guard\.sh" cannot run/,
    );
    const off = await runCliInMemory(['config', 'validate'], {
      cwd: workspace(yml.replace('enabled: true', 'enabled: false'), false),
    });
    expect(off.stdout).not.toContain('hooks');
  });
});

function makeExecutable(file: string): void {
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o755);
}
