import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { killLeftovers, markedProcesses, processesRunning } from '../helpers/marked-processes.ts';
import { fakeConfig, makeWorkspace, readRecords, runRalph } from '../helpers/workspace.ts';

// `sandbox: on` with the built CLI and shell-script agents (`backend: custom`): a normal iteration
// works inside bubblewrap, the attacks on Ralph's and git's files fail at the operating system and
// are named in the record, `--no-sandbox` runs the agent unwrapped, and a missing bwrap stops the
// run before any agent starts.

const used: string[] = [];
afterEach(() => killLeftovers(used.splice(0)));

/** A committed project whose agent is `script` (sh), under `sandbox: on`; `settings` go into ralph.yml. */
function project(script: string, loopSettings = ''): string {
  const dir = makeGitWorkspace({
    'PROMPT.md': 'work\n',
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'src/app.txt': 'old\n',
    'agent.sh': `#!/bin/sh\n${script}\n`,
    'ralph.yml': `event_loop:\n  max_iterations: 1\n${loopSettings}cli:\n  backend: custom\n  command: ./agent.sh\ngit:\n  commit: true\nsandbox: on\n`,
  });
  chmodSync(join(dir, 'agent.sh'), 0o755);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'agent');
  used.push(dir);
  return dir;
}

/** A home directory holding a private key the agent must not read. */
function homeWithKey(): string {
  const home = makeWorkspace({ '.ssh/id_rsa': 'FAKE-PRIVATE-KEY\n' });
  return home;
}

describe('sandbox: on', () => {
  it('a normal iteration works inside it: edit, commit, ralph emit, tools task and memory', async () => {
    const dir = project(
      [
        'set -e',
        'echo new > src/app.txt',
        'git add -A && git commit -qm "agent work"',
        '"$RALPH_BIN" emit build.done "built"',
        'id=$("$RALPH_BIN" tools task add x)',
        '"$RALPH_BIN" tools task close "$id"',
        '"$RALPH_BIN" tools memory add "the build uses make"',
        'echo LOOP_COMPLETE',
      ].join('\n'),
    );
    const r = await runRalph(['run', '--no-tui'], dir, { HOME: homeWithKey() });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [record] = readRecords(dir);
    expect(record).toMatchObject({
      verdict: 'complete',
      events: ['build.done'],
      sandbox: { mode: 'on', denials: [] },
    });
    expect(git(dir, 'log', '--format=%s')).toContain('agent work');
    expect(readFileSync(join(dir, '.ralph', 'agent', 'tasks.jsonl'), 'utf8')).toContain('"title":"x"');
    expect(readFileSync(join(dir, '.ralph', 'agent', 'memories.md'), 'utf8')).toContain(
      'the build uses make',
    );
    // The event stream names the agent's own command, marked as sandboxed (the pid is the wrapper's).
    const stream = readFileSync(join(dir, '.ralph', 'runs', record!.run_id, 'stream.jsonl'), 'utf8');
    const spawned = stream
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).event)
      .find((e) => e.type === 'agent.spawned');
    expect(spawned).toMatchObject({ command: './agent.sh', sandboxed: true });
  });

  it('the attacks fail at the operating system, change nothing on disk, and the record names each rule', async () => {
    const home = homeWithKey();
    const dir = project(
      [
        'echo x > .git/hooks/pre-commit',
        'echo "[core]" >> .git/config',
        'echo {} > .ralph/state.json',
        'echo "sandbox: off" > ralph.yml',
        'cat "$HOME/.ssh/id_rsa" > stolen.txt',
        'echo LOOP_COMPLETE',
      ].join('\n'),
    );
    const config = readFileSync(join(dir, '.git', 'config'), 'utf8');
    const yml = readFileSync(join(dir, 'ralph.yml'), 'utf8');
    const r = await runRalph(['run', '--no-tui', '-v'], dir, { HOME: home });
    expect(r.stdout + r.stderr).toContain('cannot create .git/hooks/pre-commit: Read-only file system');
    expect(existsSync(join(dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).toBe(config);
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toBe(yml);
    expect(readFileSync(join(dir, '.ralph', 'state.json'), 'utf8')).not.toBe('{}\n');
    expect(readFileSync(join(dir, 'stolen.txt'), 'utf8')).toBe('');
    const [record] = readRecords(dir);
    const denied = Object.fromEntries(
      (record!.sandbox.denials as { path: string; reason: string }[]).map((d) => [d.path, d.reason]),
    );
    expect(denied).toMatchObject({
      [join(dir, '.git', 'hooks', 'pre-commit')]: 'git control file',
      [join(dir, '.git', 'config')]: 'git control file',
      [join(dir, '.ralph', 'state.json')]: "Ralph's state",
      [join(dir, 'ralph.yml')]: 'config',
    });
    expect(denied[join(home, '.ssh', 'id_rsa')]).toBe('your home directory (hidden)');
    expect(r.stdout + r.stderr).toMatch(
      /sandbox refused 5 write\(s\) or read\(s\): \.git\/hooks\/pre-commit \(git control file\)/,
    );
    const explained = await runRalph(['explain'], dir);
    expect(explained.stdout).toContain('.git/hooks/pre-commit (git control file');
  });

  it('--no-sandbox runs the same config unwrapped', async () => {
    const dir = project('echo mine > .ralph/agent-wrote && echo LOOP_COMPLETE');
    const r = await runRalph(['run', '--no-tui', '--no-sandbox'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, '.ralph', 'agent-wrote'), 'utf8')).toBe('mine\n');
    expect(readRecords(dir)[0]?.sandbox).toBeUndefined();
  });

  it('an agent past iteration_timeout is killed with its children, and the sweep finds its daemon', async () => {
    const dir = project(
      [
        // Inside the sandbox's PID namespace $! is not the host's pid: the test finds them by their
        // command lines, which nothing else on the machine has.
        'sleep 300.7131 &',
        'setsid sleep 301.7131 < /dev/null > /dev/null 2>&1 &',
        'sleep 300',
      ].join('\n'),
      '  iteration_timeout_seconds: 2\n',
    );
    const r = await runRalph(['run', '--no-tui'], dir);
    const [record] = readRecords(dir);
    expect(record, r.stdout + r.stderr).toMatchObject({
      killed_by: 'iteration_timeout',
      sandbox: { mode: 'on' },
    });
    expect(processesRunning('sleep\u0000300.7131')).toEqual([]);
    expect(processesRunning('sleep\u0000301.7131')).toEqual([]);
    expect(markedProcesses(dir)).toEqual([]);
  });

  it('--parallel workers run their agents inside it, in their worktrees', async () => {
    const dir = project(
      [
        'hooks="$(git rev-parse --git-common-dir)/hooks"',
        'if echo x > "$hooks/pre-commit" 2>/dev/null; then echo UNWRAPPED; else echo SANDBOXED; fi > result.txt',
        'echo LOOP_COMPLETE',
      ].join('\n'),
    );
    const add = await runRalph(['tools', 'task', 'add', 'one'], dir);
    expect(add.code, add.stderr).toBe(0);
    const r = await runRalph(['run', '--parallel', '1', '--no-tui'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'result.txt'), 'utf8')).toBe('SANDBOXED\n');
    expect(existsSync(join(dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('the gates.review reviewer runs inside it too', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'write the tool\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}gates:\n  review:\n    backend: fake\nsandbox: on\n`,
      'fake-agent.yml': [
        'turns:',
        '  - when: { prompt: "second-opinion code reviewer" }',
        '    do:',
        '      - run: "if echo x > .git/hooks/pre-commit 2>/dev/null; then echo UNWRAPPED; else echo SANDBOXED; fi > reviewer-saw.txt"',
        '      - print: APPROVE',
        '  - do:',
        '      - write: { path: tool.sh, content: "echo hi\\n" }',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    used.push(dir);
    const r = await runRalph(['run', '--no-tui'], dir);
    const [record] = readRecords(dir);
    expect(record?.review, r.stdout + r.stderr).toMatchObject({ approved: true });
    expect(readFileSync(join(dir, 'reviewer-saw.txt'), 'utf8')).toBe('SANDBOXED\n');
    // The event stream: the agent's start and the reviewer's, each marked sandboxed.
    const stream = readFileSync(join(dir, '.ralph', 'runs', record!.run_id, 'stream.jsonl'), 'utf8');
    const spawned = stream
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).event)
      .filter((e) => e.type === 'agent.spawned');
    expect(spawned.map((e) => e.sandboxed)).toEqual([true, true]);
    expect(existsSync(join(dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('ralph doctor --probe runs the agent inside it too', async () => {
    const dir = project(
      'if echo x > .git/hooks/probe 2>/dev/null; then echo UNWRAPPED; else echo SANDBOXED; fi',
    );
    const r = await runRalph(['doctor', '--probe', '--json'], dir);
    const report = JSON.parse(r.stdout) as { probe: { message: string }; sandbox: { mode: string } };
    expect(report.sandbox.mode).toBe('on');
    expect(report.probe.message, r.stdout + r.stderr).toContain('SANDBOXED');
    expect(existsSync(join(dir, '.git', 'hooks', 'probe'))).toBe(false);
  });

  it('without bwrap on PATH the run stops at start with the install line, before any agent', async () => {
    const dir = project('touch ran && echo LOOP_COMPLETE');
    const bin = makeWorkspace();
    mkdirSync(join(bin, 'bin'));
    const gitPath = (process.env.PATH ?? '')
      .split(':')
      .map((d) => join(d, 'git'))
      .find((p) => existsSync(p));
    for (const tool of [process.execPath, gitPath!]) symlinkSync(tool, join(bin, 'bin', basename(tool)));
    const r = await runRalph(['run', '--no-tui'], dir, { PATH: join(bin, 'bin') });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain('sandbox: on cannot start here');
    expect(r.stderr).toMatch(/apt-get install bubblewrap/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });
});
