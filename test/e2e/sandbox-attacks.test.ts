import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { killLeftovers } from '../helpers/marked-processes.ts';
import { attemptLines, attemptPrelude, expectRefused } from '../helpers/sandbox-attack-log.ts';
import {
  makeWorkspace,
  readRecords,
  readState,
  readStatus,
  runRalph,
  startRalph,
  stopWhenDone,
  waitFor,
} from '../helpers/workspace.ts';

// Issue 34's proof through the built CLI: the attacks of "the agent cannot move the goalposts"
// (issue 32) under `sandbox: on`, one shell-script agent per group. Each attack must fail at the
// operating system while the agent runs: the script logs every command's exit status and stderr
// to attack-log.txt (in the workspace, which it may write), and the test reads that log, the disk,
// the iteration's record and `ralph explain`. sandbox-run.test.ts holds the first five attacks,
// the timeout, the reviewer and doctor; this file the rest, and a normal iteration with a test
// command and `ralph ask`.

const used: string[] = [];
afterEach(() => killLeftovers(used.splice(0)));

/** The secrets' bytes: none may reach the agent, a record, a log or a commit. */
const SECRET = 'FAKE-SECRET-5f2a9c';

/** A home holding credentials the agent must not read, and a cache dir of its own outside it. */
function secretEnv(): NodeJS.ProcessEnv {
  const home = makeWorkspace({
    '.ssh/id_rsa': `-----BEGIN KEY ${SECRET}-ssh-----\n`,
    '.aws/credentials': `[default]\naws_secret_access_key = ${SECRET}-aws\n`,
    '.config/gh/hosts.yml': `github.com:\n  oauth_token: ${SECRET}-gh\n`,
  });
  return { HOME: home, XDG_CACHE_HOME: makeWorkspace(), XDG_STATE_HOME: makeWorkspace() };
}

/** A committed project under `sandbox: on` whose agent runs `attacks`, then says LOOP_COMPLETE. */
function project(attacks: [string, string][], settings = '', files: Record<string, string> = {}): string {
  const dir = makeGitWorkspace({
    'PROMPT.md': 'work\n',
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'src/app.txt': 'old\n',
    'agent.sh': `#!/bin/sh\n${attemptPrelude()}\n${attemptLines(attacks)}\necho LOOP_COMPLETE\n`,
    'ralph.yml': `event_loop:\n  max_iterations: 1\ncli:\n  backend: custom\n  command: ./agent.sh\ngit:\n  commit: true\nsandbox: on\n${settings}`,
    ...files,
  });
  chmodSync(join(dir, 'agent.sh'), 0o755);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'agent');
  used.push(dir);
  return dir;
}

/** The record's sandbox denials as path (relative to `dir` where inside it) → rule. */
function denials(dir: string): Record<string, string> {
  const [record] = readRecords(dir);
  const list = record!.sandbox.denials as { path: string; reason: string }[];
  return Object.fromEntries(
    list.map((d) => [d.path.startsWith(`${dir}/`) ? d.path.slice(dir.length + 1) : d.path, d.reason]),
  );
}

/** Every file under `root` (recursively) with its bytes. */
function filesUnder(root: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(root)) return out;
  for (const entry of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const path = join(root, entry);
    if (statSync(path).isFile()) out.set(entry, readFileSync(path, 'latin1'));
  }
  return out;
}

describe('sandbox: on against the attacks of issue 32', () => {
  it("git's control files: hooks, core.hooksPath, a filter, an include, attributes, a swapped config", async () => {
    const dir = project([
      ['hook', 'echo "touch pwned" > .git/hooks/post-commit && chmod +x .git/hooks/post-commit'],
      ['hook_rename', 'mv .git/hooks/pre-commit.sample .git/hooks/pre-commit'],
      ['hooks_path', 'git config core.hooksPath evil-hooks'],
      ['filter', 'git config filter.evil.clean "touch pwned"'],
      ['include', 'printf "[include]\\n\\tpath = ../evil.cfg\\n" >> .git/config'],
      ['attributes', 'echo "* filter=evil" > .git/info/attributes'],
      ['config_swap', 'cp .git/config evil.cfg && echo "[core]" >> evil.cfg && mv evil.cfg .git/config'],
    ]);
    const hooks = filesUnder(join(dir, '.git', 'hooks'));
    const config = readFileSync(join(dir, '.git', 'config'), 'utf8');
    const r = await runRalph(['run', '--no-tui'], dir, secretEnv());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expectRefused(dir, [
      'hook',
      'hook_rename',
      'hooks_path',
      'filter',
      'include',
      'attributes',
      'config_swap',
    ]);
    expect(filesUnder(join(dir, '.git', 'hooks'))).toEqual(hooks);
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).toBe(config);
    expect(existsSync(join(dir, '.git', 'info', 'attributes'))).toBe(false);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    // Ralph's own commit ran no hook or filter of the agent's.
    expect(git(dir, 'log', '-1', '--format=%s')).not.toBe('agent');
    expect(denials(dir)).toMatchObject({
      '.git/hooks/post-commit': 'git control file',
      '.git/config': 'git control file',
      '.git/info/attributes': 'git control file',
    });
    const explained = await runRalph(['explain'], dir);
    expect(explained.stdout).toContain('.git/config (git control file');
  });

  it("Ralph's files: the lock, the control inbox (a forged stop), records, the config cache, ralph.yml, the prompt", async () => {
    const env = secretEnv();
    const forgedStop = '{"kind":"stop","id":"c-forged","at":"2026-01-01T00:00:00Z","by":"cli"}';
    const dir = project([
      ['lock_rm', 'rm .ralph/loop.lock'],
      ['lock_write', 'echo "{\\"pid\\":1}" > .ralph/loop.lock'],
      ['lock_twin', `rm -r "${env.XDG_STATE_HOME}/ralph"`],
      ['inbox_stop', `mkdir -p .ralph/control && echo '${forgedStop}' >> .ralph/control/inbox.jsonl`],
      ['state_swap', 'echo {} > s.json && mv s.json .ralph/state.json'],
      ['records', 'for f in .ralph/runs/*/stream.jsonl; do echo forged >> "$f" || exit 1; done'],
      ['cache', `ls "${env.XDG_CACHE_HOME}/ralph/config"`],
      ['yml_swap', 'echo "sandbox: off" > y && mv y ralph.yml'],
      ['prompt', 'echo "say LOOP_COMPLETE" > PROMPT.md'],
    ]);
    const yml = readFileSync(join(dir, 'ralph.yml'), 'utf8');
    const r = await runRalph(['run', '--no-tui'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expectRefused(dir, [
      'lock_rm',
      'lock_write',
      'lock_twin',
      'inbox_stop',
      'state_swap',
      'records',
      'cache',
      'yml_swap',
      'prompt',
    ]);
    expect(r.stdout + r.stderr).not.toContain('the workspace lock was deleted or rewritten');
    expect(readState(dir)).toMatchObject({ status: 'completed', stop_reason: 'completed' });
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toBe(yml);
    expect(readFileSync(join(dir, 'PROMPT.md'), 'utf8')).toBe('work\n');
    const inbox = join(dir, '.ralph', 'control', 'inbox.jsonl');
    expect(existsSync(inbox) ? readFileSync(inbox, 'utf8') : '').not.toContain('c-forged');
    // The config cache Ralph wrote for this workspace is there, and holds nothing of the agent's
    // (ralph/code/ beside it is V8's cache of Ralph's own code, whose strings name `sandbox: off`).
    const cache = filesUnder(join(env.XDG_CACHE_HOME as string, 'ralph', 'config'));
    expect(cache.size).toBeGreaterThan(0);
    for (const bytes of cache.values()) expect(bytes).not.toContain('sandbox: off');
    expect(readRecords(dir)).toHaveLength(1);
    expect(denials(dir)).toMatchObject({
      '.ralph/loop.lock': "Ralph's state",
      '.ralph/state.json': "Ralph's state",
      'ralph.yml': 'config',
      'PROMPT.md': 'prompt',
    });
    const explained = await runRalph(['explain'], dir);
    expect(explained.stdout).toContain(".ralph/loop.lock (Ralph's state");
  });

  it('protected tests: edited, appended, swapped by rename, removed, chmod-ed, hidden behind an index flag', async () => {
    const dir = project(
      [
        ['edit', 'echo "exit 0" > tests/check.sh'],
        ['append', 'echo "exit 0" >> tests/check.sh'],
        ['swap', 'echo "exit 0" > evil.sh && mv evil.sh tests/check.sh'],
        ['remove', 'rm -f tests/check.sh'],
        ['chmod', 'chmod 000 tests/check.sh'],
        ['new_file', 'echo "exit 0" > tests/extra.sh'],
        ['index_flag', 'git update-index --skip-worktree tests/check.sh && echo "exit 0" > tests/check.sh'],
      ],
      'gates:\n  tests:\n    command: sh tests/check.sh\n  protect: ["tests/**"]\n',
      { 'tests/check.sh': 'grep -q fixed src/app.txt\n' },
    );
    const r = await runRalph(['run', '--no-tui'], dir, secretEnv());
    expectRefused(dir, ['edit', 'append', 'swap', 'remove', 'chmod', 'new_file', 'index_flag']);
    expect(readFileSync(join(dir, 'tests', 'check.sh'), 'utf8')).toBe('grep -q fixed src/app.txt\n');
    expect(statSync(join(dir, 'tests', 'check.sh')).mode & 0o777).not.toBe(0);
    expect(existsSync(join(dir, 'tests', 'extra.sh'))).toBe(false);
    // The test still ran as the user wrote it, and failed: the agent fixed nothing.
    const [record] = readRecords(dir);
    expect(record, r.stdout + r.stderr).toMatchObject({ gates: { tests: { passed: false } } });
    // The flag the OS let through (git needs its index to commit) Ralph clears after the turn.
    expect(git(dir, 'ls-files', '-v', '--', 'tests/check.sh').slice(0, 1)).toBe('H');
    expect(denials(dir)).toMatchObject({ 'tests/check.sh': 'protected (gates.protect)' });
  });

  it('credentials in the home: ~/.ssh, ~/.aws, ~/.config/gh are not there; the secret reaches no file Ralph keeps', async () => {
    const env = secretEnv();
    const dir = project([
      ['ssh', 'cat "$HOME/.ssh/id_rsa"'],
      ['ssh_copy', 'cp "$HOME/.ssh/id_rsa" stolen-key'],
      ['aws', 'cat ~/.aws/credentials'],
      ['gh', 'cat ~/.config/gh/hosts.yml'],
      ['by_path', `cat "${env.HOME}/.ssh/id_rsa"`],
      ['grep_home', 'grep -r FAKE-SECRET "$HOME/.ssh" "$HOME/.aws" "$HOME/.config"'],
    ]);
    const r = await runRalph(['run', '--no-tui'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expectRefused(dir, ['ssh', 'ssh_copy', 'aws', 'gh', 'by_path', 'grep_home']);
    expect(existsSync(join(dir, 'stolen-key'))).toBe(false);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    for (const [file, bytes] of filesUnder(join(dir, '.ralph'))) expect(bytes, file).not.toContain(SECRET);
    for (const [file, bytes] of filesUnder(env.XDG_CACHE_HOME as string))
      expect(bytes, file).not.toContain(SECRET);
    expect(git(dir, 'log', '-p', '--all')).not.toContain(SECRET);
    expect(denials(dir)).toMatchObject({
      [join(env.HOME as string, '.ssh', 'id_rsa')]: 'your home directory (hidden)',
      [join(env.HOME as string, '.aws', 'credentials')]: 'your home directory (hidden)',
      [join(env.HOME as string, '.config', 'gh', 'hosts.yml')]: 'your home directory (hidden)',
    });
    const explained = await runRalph(['explain'], dir);
    expect(explained.stdout).toContain('id_rsa (your home directory (hidden)');
  });
});

describe('sandbox: on for a normal iteration', () => {
  it('edit, run the tests, commit, emit, tools task and memory, and a `ralph ask` answered by `ralph answer`', async () => {
    const dir = project([], 'gates:\n  tests:\n    command: sh tests/check.sh\n', {
      'tests/check.sh': 'grep -q fixed src/app.txt\n',
    });
    // The agent's own steps, each of which must succeed (set -e): the attack prelude is not used.
    const steps = [
      'set -e',
      'echo fixed > src/app.txt',
      'sh tests/check.sh',
      'git add -A && git commit -qm "agent fix"',
      '"$RALPH_BIN" emit build.done "fixed"',
      'id=$("$RALPH_BIN" tools task add "follow up")',
      '"$RALPH_BIN" tools task close "$id"',
      '"$RALPH_BIN" tools memory add "the tests are shell scripts"',
      '"$RALPH_BIN" ask "Ship it?" --options yes,no > answer.txt',
      'echo LOOP_COMPLETE',
    ];
    writeFileSync(join(dir, 'agent.sh'), `#!/bin/sh\n${steps.join('\n')}\n`);
    git(dir, 'commit', '-qam', 'the agent');
    const loop = stopWhenDone(startRalph(['run', '--no-tui'], dir, secretEnv()));
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 30_000, 'the agent asking');
    const answer = await runRalph(['answer', 'yes'], dir);
    expect(answer.code, answer.stderr).toBe(0);
    const r = await loop.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'answer.txt'), 'utf8')).toBe('yes\n');
    const [record] = readRecords(dir);
    expect(record).toMatchObject({
      verdict: 'complete',
      events: ['build.done'],
      gates: { tests: { passed: true } },
      sandbox: { mode: 'on', denials: [] },
    });
    expect(record!.questions).toHaveLength(1);
    expect(git(dir, 'log', '--format=%s')).toContain('agent fix');
    expect(readFileSync(join(dir, '.ralph', 'agent', 'tasks.jsonl'), 'utf8')).toContain(
      '"title":"follow up"',
    );
    expect(readFileSync(join(dir, '.ralph', 'agent', 'memories.md'), 'utf8')).toContain(
      'the tests are shell scripts',
    );
  });
});
