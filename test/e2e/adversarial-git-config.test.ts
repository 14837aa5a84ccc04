import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attackScript, attacksRan, plant, project } from '../helpers/adversarial-git.ts';
import { git } from '../helpers/git-workspace.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { makeWorkspace, readRecords, runRalph } from '../helpers/workspace.ts';

// Issue 32: settings of the repository's own config that make git run a program (a clean filter, a
// remote's receive-pack, an include that brings one in) are fixed at run start. The scripted agent
// adds one; Ralph refuses the iteration before its first git call, names the key in the record,
// and puts .git/config back — the planted program never runs in Ralph's calls. A user's own
// filter, configured before the run (git-crypt keeps its one in .git/config), keeps working.

const FILTER = '.git/evil-filter.sh';
/** A clean filter that logs, copies the denied file out, and passes the content through. */
const plantFilter = plant(FILTER, 'clean', 'cp secrets/key leaked.txt 2>/dev/null; cat');
/**
 * The agent changes a tracked file that its attribute sends through the filter: its size stays, so
 * `git status` must read it, through the filter.
 */
const TOUCH = ['      - write: { path: notes.txt, content: "NOTES\\n" }'];
const ATTRS = ['      - write: { path: .gitattributes, content: "notes.txt filter=evil\\n" }'];
const FILES = { 'notes.txt': 'notes\n', 'secrets/key': 'hunter2\n' };

const used: string[] = [];
afterEach(() => {
  killLeftovers(used.splice(0));
});

function refused(dir: string, key: string): Record<string, any> {
  const [record] = readRecords(dir);
  expect(record).toMatchObject({ verdict: 'gate_tampered', commit: null });
  expect(record?.git_config).toContain(key);
  expect(record?.reason).toContain(key);
  return record as Record<string, any>;
}

/** The agent's version of the config, kept in the run's directory when Ralph put the run's back. */
function keptVersions(dir: string): string[] {
  const runs = join(dir, '.ralph', 'runs');
  const out: string[] = [];
  for (const run of readdirSync(runs)) {
    const kept = join(runs, run, 'git-config-refused-1');
    if (existsSync(kept)) for (const f of readdirSync(kept)) out.push(readFileSync(join(kept, f), 'utf8'));
  }
  return out;
}

describe("program-running settings the agent adds to the repository's git config", () => {
  it('a clean filter with its attribute: refused before any git call, the filter never runs, .git/config put back', async () => {
    const steps = [
      ...plantFilter,
      `      - run: "git config filter.evil.clean ${FILTER}"`,
      ...ATTRS,
      ...TOUCH,
    ];
    const dir = project(steps, 'git:\n  commit: true\n', FILES);
    used.push(dir);
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const configBefore = readFileSync(join(dir, '.git', 'config'), 'utf8');
    await runRalph(['run'], dir);
    expect(attacksRan(dir)).toEqual([]);
    expect(existsSync(join(dir, 'leaked.txt'))).toBe(false);
    refused(dir, 'filter.evil.clean');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(keptVersions(dir).join('')).toContain('[filter "evil"]');
    expect(markedProcesses(dir)).toEqual([]);
    // Plain git with the agent's setting runs it on status: the plant was live.
    git(dir, 'config', 'filter.evil.clean', FILTER);
    git(dir, 'status', '--porcelain');
    expect(attacksRan(dir)).toContain('clean');
    expect(existsSync(join(dir, 'leaked.txt'))).toBe(true);
  });

  it('under gates.on_failure: rollback the same: refused, the config put back, the filter never run', async () => {
    const steps = [
      ...plantFilter,
      `      - run: "git config filter.evil.clean ${FILTER}"`,
      ...ATTRS,
      ...TOUCH,
    ];
    const dir = project(steps, 'gates:\n  on_failure: rollback\ngit:\n  commit: true\n', FILES);
    used.push(dir);
    const configBefore = readFileSync(join(dir, '.git', 'config'), 'utf8');
    await runRalph(['run'], dir);
    expect(attacksRan(dir)).toEqual([]);
    refused(dir, 'filter.evil.clean');
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(markedProcesses(dir)).toEqual([]);
  });

  it("a remote's receivepack: refused before the push, which never runs it", async () => {
    const remote = makeWorkspace();
    execFileSync('git', ['init', '-q', '--bare', remote]);
    const steps = [
      ...plant('.git/evil-receive.sh', 'receive-pack', 'exec git-receive-pack "$@"'),
      '      - run: "git config remote.origin.receivepack $PWD/.git/evil-receive.sh"',
    ];
    const dir = project(steps, 'git:\n  commit: true\n  push: true\n  push_attempts: 1\n');
    used.push(dir);
    git(dir, 'remote', 'add', 'origin', remote);
    await runRalph(['run'], dir);
    expect(attacksRan(dir)).toEqual([]);
    refused(dir, 'remote.origin.receivepack');
    expect(git(remote, 'for-each-ref').trim()).toBe('');
    expect(() => git(dir, 'config', '--get-all', 'remote.origin.receivepack')).toThrow();
    expect(markedProcesses(dir)).toEqual([]);
  });

  it('an include.path to a file the agent wrote, holding a filter: refused, naming both', async () => {
    const include = '[filter "evil"]\n\tclean = .git/evil-filter.sh\n';
    const steps = [
      ...plantFilter,
      `      - write: { path: .git/extra.cfg, content: ${JSON.stringify(include)} }`,
      '      - run: "git config include.path extra.cfg"',
      ...ATTRS,
      ...TOUCH,
    ];
    const dir = project(steps, 'git:\n  commit: true\n', FILES);
    used.push(dir);
    await runRalph(['run'], dir);
    expect(attacksRan(dir)).toEqual([]);
    expect(existsSync(join(dir, 'leaked.txt'))).toBe(false);
    const record = refused(dir, 'include.path');
    expect(record.git_config).toContain('filter.evil.clean');
    expect(() => git(dir, 'config', '--get-all', 'include.path')).toThrow();
  });

  it('a filter written into a file the user’s own include already names: its bytes are watched too', async () => {
    const include = '[filter "evil"]\n\tclean = .git/evil-filter.sh\n';
    const steps = [
      ...plantFilter,
      `      - write: { path: .git/user.cfg, content: ${JSON.stringify(include)} }`,
      ...ATTRS,
      ...TOUCH,
    ];
    const dir = project(steps, 'git:\n  commit: true\n', FILES);
    used.push(dir);
    git(dir, 'config', 'include.path', 'user.cfg'); // the user's, before the run; the file does not exist yet
    await runRalph(['run'], dir);
    expect(attacksRan(dir)).toEqual([]);
    refused(dir, 'filter.evil.clean');
    expect(existsSync(join(dir, '.git', 'user.cfg'))).toBe(false);
  });

  it('a filter the user configured before the run (like git-crypt) runs in Ralph’s commit', async () => {
    const steps = ['      - write: { path: secret.txt, content: "plain\\n" }'];
    const dir = project(steps, 'git:\n  commit: true\n', { '.gitattributes': 'secret.txt filter=crypt\n' });
    used.push(dir);
    writeFileSync(join(dir, '.git', 'crypt.sh'), attackScript('user-clean', "sed 's/^/ENC:/'"), {
      mode: 0o755,
    });
    git(dir, 'config', 'filter.crypt.clean', '.git/crypt.sh');
    git(dir, 'config', 'filter.crypt.smudge', "sed 's/^ENC://'");
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [record] = readRecords(dir);
    expect(record).toMatchObject({ verdict: 'complete' });
    expect(record?.git_config).toBeUndefined();
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(record?.commit);
    // Committed through the user's filter: the repository holds the "encrypted" text.
    expect(git(dir, 'show', 'HEAD:secret.txt')).toBe('ENC:plain\n');
    expect(attacksRan(dir)).toContain('user-clean');
  });

  it('a setting that runs nothing (a branch description) is no refusal: the iteration commits', async () => {
    const dir = project(['      - run: "git config branch.main.description wip"'], 'git:\n  commit: true\n');
    used.push(dir);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [record] = readRecords(dir);
    expect(record).toMatchObject({ verdict: 'complete' });
    expect(record?.git_config).toBeUndefined();
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(record?.commit);
    expect(git(dir, 'config', 'branch.main.description').trim()).toBe('wip');
  });

  it('a filter planted by an iteration Ralph was killed in: `--resume` refuses before any git call', async () => {
    const steps = [
      ...plantFilter,
      `      - run: "git config filter.evil.clean ${FILTER}"`,
      ...ATTRS,
      ...TOUCH,
      // Ralph dies mid-iteration (kill -9): nobody is there to refuse the change.
      `      - run: "kill -9 $(node -p 'require(\\"./.ralph/state.json\\").pid')"`,
    ];
    const dir = project(steps, 'git:\n  commit: true\n', FILES);
    used.push(dir);
    const killed = await runRalph(['run'], dir);
    expect(killed.signal ?? killed.code).toBe('SIGKILL');
    // The fake agent outlived Ralph by the rest of its script: wait for its last file.
    await expect.poll(() => existsSync(join(dir, 'ok.txt')), { timeout: 10_000 }).toBe(true);
    const r = await runRalph(['run', '--resume'], dir);
    expect(attacksRan(dir)).toEqual([]);
    expect(existsSync(join(dir, 'leaked.txt'))).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('filter.evil.clean');
    expect(r.stderr).toContain('ralph run --fresh');
  });

  it('`ralph rescue apply` after the run refuses a filter added since its last check; plain git would run it', async () => {
    // Iteration 1 fails its tests gate and is rolled back into a rescue ref; the run stops there.
    const steps = ['      - write: { path: idea.txt, content: "an idea\\n" }'];
    const dir = project(
      steps,
      'gates:\n  tests:\n    command: test -f fixed.txt\n  on_failure: rollback\ngit:\n  commit: true\n',
    );
    used.push(dir);
    await runRalph(['run'], dir);
    expect(readRecords(dir)[0]?.rollback?.ref).toMatch(/^refs\/ralph\/rescue\//);
    // What an agent could leave when Ralph is killed mid-iteration: a smudge filter on what the apply writes.
    writeFileSync(join(dir, '.git', 'smudge.sh'), attackScript('smudge', 'cat'), { mode: 0o755 });
    git(dir, 'config', 'filter.evil.smudge', '.git/smudge.sh');
    writeFileSync(join(dir, '.git', 'info', 'attributes'), 'idea.txt filter=evil\n');
    const r = await runRalph(['rescue', 'apply', '1'], dir);
    expect(attacksRan(dir)).toEqual([]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('filter.evil.smudge');
    expect(r.stderr).toContain('git cherry-pick --no-commit');
    expect(existsSync(join(dir, 'idea.txt'))).toBe(false);
    // Plain git's apply runs it: the plant was live.
    const ref = readRecords(dir)[0]?.rollback?.ref as string;
    git(dir, 'cherry-pick', '--no-commit', ref);
    expect(attacksRan(dir)).toContain('smudge');
  });
});
