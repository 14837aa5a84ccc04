import { afterEach, describe, expect, it } from 'vitest';
import { project } from '../helpers/adversarial-git.ts';
import { git } from '../helpers/git-workspace.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { makeWorkspace, readRecords, runRalph } from '../helpers/workspace.ts';

// Issue 32, the second red team's holes 2 and 6: a remote-tracking ref the agent writes must not
// make Ralph believe the remote has a commit it lacks, and a secret code run by the gates writes
// into memories.md must not be committed.

const SECRET = 'sk-SUPERSECRET-98765';
const ENV = { FOO_API_KEY: SECRET };
const PUSH = 'git:\n  commit: true\n  push: true\n  push_attempts: 1\n';

const used: string[] = [];
afterEach(() => {
  killLeftovers(used.splice(0));
});

/** A bare repository as `origin` of `dir`, holding its `main`. */
function withRemote(dir: string): string {
  const bare = makeWorkspace({}, 'adv-remote');
  git(bare, 'init', '-q', '--bare', '-b', 'main');
  git(dir, 'remote', 'add', 'origin', bare);
  git(dir, 'push', '-q', 'origin', 'main');
  return bare;
}

describe('what the remote already has is asked of the remote (hole 2)', () => {
  it("the agent's commit with a secret and a fake refs/remotes/origin/* at it: the push is refused, named in the record", async () => {
    const attack = 'git commit -qam "leak $FOO_API_KEY" && git update-ref refs/remotes/origin/cache HEAD';
    const dir = project(
      ['      - write: { path: ok.txt, content: "better\\n" }', `      - run: 'git add ok.txt && ${attack}'`],
      PUSH,
    );
    used.push(dir);
    const bare = withRemote(dir);
    const r = await runRalph(['run'], dir, ENV);
    expect(r.code).not.toBe(0);
    const [record] = readRecords(dir);
    expect(record?.decision.stop).toMatchObject({ reason: 'push_failed' });
    expect(record?.decision.stop.message).toMatch(
      /refusing to push: commit [0-9a-f]+ holds a secret in its message/,
    );
    // Not vacuous: the agent's commit is there locally, with the secret, and the fake ref points at it.
    expect(git(dir, 'log', '--format=%B', 'refs/remotes/origin/cache')).toContain(SECRET);
    expect(git(bare, 'log', '--all', '--format=%an %ae %cn %ce %B')).not.toContain(SECRET);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(markedProcesses(dir)).toEqual([]);
  }, 30_000);

  it('commits the remote really has are not scanned: a clean push after one the remote holds goes out', async () => {
    const dir = project([], PUSH);
    used.push(dir);
    const bare = withRemote(dir);
    const r = await runRalph(['run'], dir, ENV);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(git(bare, 'rev-parse', 'main').trim()).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    expect(markedProcesses(dir)).toEqual([]);
  }, 30_000);
  it('an annotated tag with a secret and push.followTags set by the agent: the push sends the branch only', async () => {
    const attack = 'git tag -a v9 -m "leak $FOO_API_KEY" && git config push.followTags true';
    const dir = project([`      - run: '${attack}'`], PUSH);
    used.push(dir);
    const bare = withRemote(dir);
    const r = await runRalph(['run'], dir, ENV);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(git(bare, 'rev-parse', 'main').trim()).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    // Not vacuous: plain git with the agent's config would send the tag.
    expect(git(dir, 'cat-file', '-p', 'v9')).toContain(SECRET);
    expect(git(bare, 'for-each-ref', '--format=%(refname) %(contents)')).not.toContain(SECRET);
    expect(markedProcesses(dir)).toEqual([]);
  }, 30_000);
});

describe('agent files are cleaned again after the gates, right before the commit (hole 6)', () => {
  it('a tests gate sourcing an agent-written lib that writes the secret into memories.md: HEAD holds it redacted', async () => {
    const lib = JSON.stringify(
      'mkdir -p .ralph/agent && echo "note $FOO_API_KEY" >> .ralph/agent/memories.md\n',
    );
    const dir = project(
      [
        `      - write: { path: tests/lib.sh, content: ${lib} }`,
        '      - write: { path: tests/check.sh, content: ". tests/lib.sh\\n" }',
      ],
      'git:\n  commit: true\ngates:\n  tests:\n    command: "sh tests/check.sh"\n',
    );
    used.push(dir);
    const r = await runRalph(['run'], dir, ENV);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [record] = readRecords(dir);
    expect(record?.commit).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    // Not vacuous: the gate ran and wrote its note; the commit has it without the secret.
    const memories = git(dir, 'show', 'HEAD:.ralph/agent/memories.md');
    expect(memories).toContain('note [redacted]');
    expect(git(dir, 'log', '--all', '-p', '--format=%B')).not.toContain(SECRET);
    expect(markedProcesses(dir)).toEqual([]);
  }, 30_000);
});
