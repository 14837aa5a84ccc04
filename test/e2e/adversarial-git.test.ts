import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attacksRan, plant, project } from '../helpers/adversarial-git.ts';
import { git } from '../helpers/git-workspace.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { makeWorkspace, readRecords, runRalph } from '../helpers/workspace.ts';

// Issue 32, item 1: the scripted agent plants what git would run (hooks, a hooks path of its own,
// replace refs), then Ralph commits (and pushes) its work. Nothing the agent wrote into .git/ may
// run inside Ralph's own git calls: each planted program leaves its name in .git/attack-ran when
// it runs, and after the run the test shows with plain git that the plant was live.

const DENY = '  deny: ["secrets/**"]\n';

/** Every path in every commit reachable from any ref, replace refs ignored (the real objects). */
function pathsInHistory(dir: string): string[] {
  const out = execFileSync('git', ['-C', dir, 'log', '--all', '--name-only', '--format='], {
    encoding: 'utf8',
    env: { ...process.env, GIT_NO_REPLACE_OBJECTS: '1' },
  });
  return [...new Set(out.split('\n').filter((l) => l.length > 0))].sort();
}

/** Plain git (the agent's kind) does run the plant: the attack was live, only Ralph ignored it. */
function provePlantLive(dir: string, ...gitArgs: string[]): void {
  git(dir, ...gitArgs);
  expect(attacksRan(dir).length).toBeGreaterThan(0);
}

const SLEEP = `1000.${process.pid}`;

/** Live `sleep SLEEP` processes: the daemon a post-commit hook starts. */
function daemons(): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${SLEEP}\0`;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const used: string[] = [];
afterEach(() => {
  killLeftovers(used.splice(0), daemons());
});

function committedByRalph(dir: string): void {
  const [record] = readRecords(dir);
  expect(record).toMatchObject({ verdict: 'complete' });
  expect(record?.commit).toMatch(/^[0-9a-f]{40}$/);
  expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(record?.commit);
  expect(git(dir, 'log', '-1', '--format=%s').trim()).toMatch(/^ralph: /);
  expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('ok.txt');
}

describe("an agent's git plants do not run inside Ralph's own git calls", () => {
  it('a pre-commit hook that stages a denied file: not in any commit, the hook never ran', async () => {
    const steps = plant(
      '.git/hooks/pre-commit',
      'pre-commit',
      'mkdir -p secrets && echo hunter2 > secrets/key && git add secrets/key',
    );
    const dir = project(steps, `rules:\n${DENY}git:\n  commit: true\n`);
    used.push(dir);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    committedByRalph(dir);
    expect(attacksRan(dir)).toEqual([]);
    expect(existsSync(join(dir, 'secrets'))).toBe(false);
    expect(pathsInHistory(dir)).not.toContain('secrets/key');
    provePlantLive(dir, 'commit', '-q', '--allow-empty', '-m', 'plain git');
  });

  it('a pre-commit hook that rewrites the protected tests script after the check: the commit holds the real one', async () => {
    const check = 'test -f ok.txt\n';
    const steps = plant(
      '.git/hooks/pre-commit',
      'pre-commit',
      "printf 'exit 0\\n' > check.sh && git add check.sh",
    );
    const dir = project(steps, 'gates:\n  tests:\n    command: sh check.sh\ngit:\n  commit: true\n', {
      'check.sh': check,
    });
    used.push(dir);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    committedByRalph(dir);
    expect(attacksRan(dir)).toEqual([]);
    expect(git(dir, 'show', 'HEAD:check.sh')).toBe(check);
    expect(readFileSync(join(dir, 'check.sh'), 'utf8')).toBe(check);
    provePlantLive(dir, 'commit', '-q', '--allow-empty', '-m', 'plain git');
  });

  it("a commit-msg hook that rewrites the message: Ralph's commit keeps its own", async () => {
    const steps = plant('.git/hooks/commit-msg', 'commit-msg', 'echo "innocent refactor" > "$1"');
    const dir = project(steps, 'git:\n  commit: true\n');
    used.push(dir);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    committedByRalph(dir);
    expect(attacksRan(dir)).toEqual([]);
    provePlantLive(dir, 'commit', '-q', '--allow-empty', '-m', 'plain git');
  });

  it('a pre-push hook: never runs on Ralph’s push to a local bare remote', async () => {
    const remote = makeWorkspace();
    execFileSync('git', ['init', '-q', '--bare', remote]);
    const steps = plant('.git/hooks/pre-push', 'pre-push', 'exit 1');
    const dir = project(steps, 'git:\n  commit: true\n  push: true\n  push_attempts: 1\n');
    used.push(dir);
    git(dir, 'remote', 'add', 'origin', remote);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    committedByRalph(dir);
    expect(attacksRan(dir)).toEqual([]);
    expect(git(remote, 'rev-parse', 'main').trim()).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    expect(() => git(dir, 'push', '-q', 'origin', 'HEAD:refs/heads/other')).toThrow();
    expect(attacksRan(dir)).toEqual(['pre-push']);
  });

  it('core.hooksPath set in .git/config to hooks the agent wrote: none of them runs', async () => {
    const steps = [
      ...plant(
        '.git/evil-hooks/pre-commit',
        'pre-commit',
        'mkdir -p secrets && echo hunter2 > secrets/key && git add secrets/key',
      ),
      ...plant('.git/evil-hooks/post-commit', 'post-commit', 'exit 0'),
      '      - run: "git config core.hooksPath .git/evil-hooks"',
    ];
    const dir = project(steps, `rules:\n${DENY}git:\n  commit: true\n`);
    used.push(dir);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    committedByRalph(dir);
    expect(attacksRan(dir)).toEqual([]);
    expect(pathsInHistory(dir)).not.toContain('secrets/key');
    provePlantLive(dir, 'commit', '-q', '--allow-empty', '-m', 'plain git');
  });

  it("an fsmonitor command set in .git/config: Ralph's status and commit never run it", async () => {
    const steps = [
      ...plant('.git/fsmonitor.sh', 'fsmonitor', 'exit 1'),
      '      - run: "git config core.fsmonitor .git/fsmonitor.sh"',
    ];
    const dir = project(steps, 'git:\n  commit: true\n');
    used.push(dir);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    committedByRalph(dir);
    expect(attacksRan(dir)).toEqual([]);
    provePlantLive(dir, 'status', '--porcelain');
  });

  it('`git replace` hiding a committed denied file: the rules see it, the iteration is rolled back', async () => {
    const steps = [
      '      - write: { path: secrets/key, content: "hunter2\\n" }',
      // The replaced HEAD looks like its parent: the index is reset to that and the file removed,
      // so plain `git status` and `git diff <start> HEAD` show nothing.
      '      - run: "git add secrets/key && git commit -qm tidy && git replace HEAD HEAD~1 && git reset -q && rm -r secrets"',
    ];
    const dir = project(steps, `rules:\n${DENY}git:\n  commit: true\n`);
    used.push(dir);
    const initial = git(dir, 'rev-parse', 'HEAD').trim();
    await runRalph(['run'], dir);
    const [record] = readRecords(dir);
    expect(record).toMatchObject({ verdict: 'rule_violation', commit: null });
    expect(record?.reason).toContain('secrets/key');
    expect(git(dir, 'rev-parse', 'main').trim()).toBe(initial);
    const onMain = execFileSync('git', ['-C', dir, 'log', 'main', '--name-only', '--format='], {
      encoding: 'utf8',
      env: { ...process.env, GIT_NO_REPLACE_OBJECTS: '1' },
    });
    expect(onMain).not.toContain('secrets/key');
    expect(existsSync(join(dir, 'secrets', 'key'))).toBe(false);
  });

  it('a post-commit hook that starts a daemon: it never runs, and nothing is left running', async () => {
    const daemon = `setsid sh -c 'echo $$ > .git/daemon.pid; exec sleep ${SLEEP}' </dev/null >/dev/null 2>&1 &`;
    const steps = plant('.git/hooks/post-commit', 'post-commit', daemon);
    const dir = project(steps, 'git:\n  commit: true\n');
    used.push(dir);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    committedByRalph(dir);
    expect(attacksRan(dir)).toEqual([]);
    expect(existsSync(join(dir, '.git', 'daemon.pid'))).toBe(false);
    expect(daemons()).toEqual([]);
    expect(markedProcesses(dir)).toEqual([]);
    // Plain git would have left it running (afterEach kills it).
    provePlantLive(dir, 'commit', '-q', '--allow-empty', '-m', 'plain git');
    await expect.poll(() => daemons().length, { timeout: 5_000 }).toBe(1);
  });
});
