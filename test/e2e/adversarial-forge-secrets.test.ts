import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { project } from '../helpers/adversarial-git.ts';
import { type ForgeProject, forgeProject } from '../helpers/forge-workspace.ts';
import { git } from '../helpers/git-workspace.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { makeWorkspace, readRecords, runRalph } from '../helpers/workspace.ts';

// Issue 32: a secret of the run's environment must not leave the machine through git or forge
// metadata the agent controls. The scripted agent puts $ACME_CLOUD_API_KEY in a milestone heading
// (pull request title, body, branch), a branch name, a file name (the commit message's list) and
// the commit identity; the scripted GitHub and a local bare remote must never receive it.

const SECRET = 'acme-Zq8vR2pL9xW4tY7u-fgs';
const ENV = { ACME_CLOUD_API_KEY: SECRET };

/** Where the secret (or a cut-off start of it: a slug or a subject is cut) shows in `text`. */
const leaks = (where: string, text: string): string[] =>
  text.toLowerCase().includes(SECRET.slice(0, 8).toLowerCase()) ? [where] : [];

/** What a remote holds that git metadata carries: every commit's identities and message, every ref. */
function remoteLeaks(bare: string): string[] {
  return [
    ...leaks('remote log', git(bare, 'log', '--all', '--format=%an %ae %cn %ce %B')),
    ...leaks('remote refs', git(bare, 'for-each-ref')),
  ];
}

/** A bare repository as `origin` of `dir`. */
function withRemote(dir: string): string {
  const bare = makeWorkspace({}, 'adv-remote');
  git(bare, 'init', '-q', '--bare', '-b', 'main');
  git(dir, 'remote', 'add', 'origin', bare);
  return bare;
}

const PUSH = 'git:\n  commit: true\n  push: true\n';

const used: string[] = [];
let forge: ForgeProject | undefined;
afterEach(async () => {
  await forge?.github.close();
  forge = undefined;
  killLeftovers(used.splice(0));
});

describe('secrets in git and forge metadata the agent controls never leave the machine', () => {
  it('a milestone heading with a secret: the pull request title, body and branch are sent redacted', async () => {
    forge = await forgeProject('wait_for_merge: false');
    const p = forge;
    used.push(p.dir);
    // Iteration 1 renames the milestone, the next ones work on it: its branch and PR carry the new title.
    writeFileSync(
      join(p.dir, 'fake-agent.yml'),
      [
        'turns:',
        '  - do:',
        '      - run: |',
        '          sed -i "s/^## Milestone 1: Foundation.*$/## Milestone 1: Foundation $ACME_CLOUD_API_KEY/" DESIGN.md',
        "          n=$(grep -n -m1 -- '- \\[ \\]' DESIGN.md | cut -d: -f1)",
        '          sed -i "${n}s/- \\[ \\]/- [x]/" DESIGN.md',
        '',
      ].join('\n'),
    );
    git(p.dir, 'commit', '-qam', 'the agent script');
    const r = await runRalph(['run'], p.dir, { ...p.env, ...ENV });
    expect(r.code).toBe(0);
    // Not vacuous: a pull request for the renamed milestone was opened, on a branch of its slug.
    const renamed = p.github.state.pulls.find((x) => x.title.startsWith('Foundation ['));
    expect(renamed).toMatchObject({ title: 'Foundation [redacted]', head: 'ralph/foundation-redacted' });
    expect(renamed?.body).toContain('Milestone **Foundation [redacted]**');
    const found = [
      ...leaks('GitHub requests', JSON.stringify(p.github.requests)),
      ...remoteLeaks(p.bare),
      ...leaks('console', r.stdout + r.stderr),
    ];
    expect(found).toEqual([]);
    expect(markedProcesses(p.dir)).toEqual([]);
  }, 60_000);

  it('a branch named with a secret: the push is refused and named in the record, the remote never gets the ref', async () => {
    const dir = project(['      - run: \'git checkout -q -b "feat-$ACME_CLOUD_API_KEY"\''], PUSH);
    used.push(dir);
    const bare = withRemote(dir);
    const r = await runRalph(['run'], dir, ENV);
    expect(r.code).not.toBe(0);
    const [record] = readRecords(dir);
    expect(record?.decision.stop).toMatchObject({ reason: 'push_failed' });
    expect(record?.decision.stop.message).toContain('the branch name contains a secret (feat-[redacted])');
    // The commit was made (on the agent's branch), only the push was refused.
    expect(record?.commit).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    expect(git(bare, 'for-each-ref').trim()).toBe('');
    expect([...remoteLeaks(bare), ...leaks('console', r.stdout + r.stderr)]).toEqual([]);
    expect(markedProcesses(dir)).toEqual([]);
  }, 30_000);

  it('a file named with a secret: the commit message lists it redacted, locally and on the remote', async () => {
    const dir = project(
      ['      - write: { path: "notes-{{env.ACME_CLOUD_API_KEY}}.txt", content: "n\\n" }'],
      PUSH,
    );
    used.push(dir);
    const bare = withRemote(dir);
    const r = await runRalph(['run'], dir, ENV);
    expect(r.code).toBe(0);
    const message = git(bare, 'log', '-1', '--format=%B', 'main');
    expect(message).toContain('- Changed: notes-[redacted].txt, ok.txt');
    expect([
      ...remoteLeaks(bare),
      ...leaks('local log', git(dir, 'log', '--all', '--format=%an %ae %cn %ce %B')),
      ...leaks('console', r.stdout + r.stderr),
    ]).toEqual([]);
    expect(markedProcesses(dir)).toEqual([]);
  }, 30_000);

  it("an author name with a secret: Ralph's commit is refused and named in the record, nothing is pushed", async () => {
    const dir = project(['      - run: \'git config user.name "bot $ACME_CLOUD_API_KEY"\''], PUSH);
    used.push(dir);
    const bare = withRemote(dir);
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const r = await runRalph(['run'], dir, ENV);
    expect(r.code).not.toBe(0);
    const [record] = readRecords(dir);
    expect(record?.commit).toBeNull();
    expect(record?.decision.stop).toMatchObject({ reason: 'error' });
    expect(record?.decision.stop.message).toContain('the commit author contains a secret (bot [redacted] <');
    // The work is left uncommitted, for the user to commit under a clean identity.
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(git(dir, 'status', '--porcelain')).toContain('ok.txt');
    expect(git(bare, 'for-each-ref').trim()).toBe('');
    expect([
      ...remoteLeaks(bare),
      ...leaks('local log', git(dir, 'log', '--all', '--format=%an %ae %cn %ce %B')),
      ...leaks('console', r.stdout + r.stderr),
    ]).toEqual([]);
    expect(markedProcesses(dir)).toEqual([]);
  }, 30_000);

  it("the agent's own commit with a secret in its message: the push is refused and named in the record", async () => {
    const commit = 'git add -A && git commit -qm "deploy with $ACME_CLOUD_API_KEY"';
    const dir = project(
      [`      - write: { path: deploy.txt, content: "d\\n" }`, `      - run: '${commit}'`],
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
    // Not vacuous: the agent's commit is there locally, with the secret, and only there.
    expect(git(dir, 'log', '--format=%B', 'HEAD~1')).toContain(SECRET);
    expect(git(bare, 'for-each-ref').trim()).toBe('');
    expect([...remoteLeaks(bare), ...leaks('console', r.stdout + r.stderr)]).toEqual([]);
    expect(markedProcesses(dir)).toEqual([]);
  }, 30_000);
});
