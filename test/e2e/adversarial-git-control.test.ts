import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { attack, sh } from '../helpers/adversarial-git.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { fakeConfig, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

// Each test is one attack by a scripted agent on git's own control files (.git/commondir,
// .git/info/attributes, objects/info/alternates): they would send Ralph's git calls to another
// repository or change which filter its `git add` runs. Each must be refused as gate_tampered,
// named in the record, put back before Ralph's first git call, and nothing committed.

const outside: string[] = [];
afterEach(() => {
  for (const d of outside.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A directory outside the workspace the agent can write to (its shadow repository, the marker). */
function elsewhere(): string {
  const d = mkdtempSync(join(tmpdir(), 'ralph-shadow-'));
  outside.push(d);
  return d;
}

/** A committed project (git.commit) whose one iteration runs `steps`; `settings` go into ralph.yml. */
function project(steps: string[], settings = '', files: Record<string, string> = {}): string {
  return makeGitWorkspace({
    'PROMPT.md': 'work\n',
    '.gitignore': 'dist/\n',
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'src/app.ts': 'good\n',
    'ralph.yml': `${fakeConfig({ max_iterations: 1 })}${settings}git:\n  commit: true\n`,
    'fake-agent.yml': ['turns:', '  - do:', ...steps.map((s) => `      - ${s}`)].join('\n'),
    ...files,
  });
}

describe("git's control files changed by the agent", () => {
  it('.git/commondir pointing at a shadow repository with a planted clean filter is gate_tampered, the filter never run', async () => {
    const d = elsewhere();
    const shadow = join(d, 'shadow');
    const marker = join(d, 'PWNED');
    const filter = `sh -c 'echo ran >> ${marker}; cat'`;
    const dir = project([
      sh(
        `cp -r .git ${shadow} && git --git-dir=${shadow} config filter.x.clean "${filter}" && echo '* filter=x' > ${shadow}/info/attributes && echo ${shadow} > .git/commondir && echo better > src/app.ts`,
      ),
      'print: LOOP_COMPLETE',
    ]);
    const head = git(dir, 'rev-parse', 'HEAD');
    const record = await attack(dir);
    expect(record).toMatchObject({ verdict: 'gate_tampered', commit: null, tampered: ['.git/commondir'] });
    expect(record.reason).toContain('.git/commondir');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(dir, '.git', 'commondir'))).toBe(false);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dir, '--git-dir', shadow, 'rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(join(dir, 'src', 'app.ts'), 'utf8')).toBe('better\n');
  });

  it('.git/info/attributes taking secrets out of an encryption filter is gate_tampered, the secret never committed in clear', async () => {
    const dir = project(
      [
        sh(`echo topsecret-value-2 > secrets/key && echo 'secrets/* -filter' >> .git/info/attributes`),
        'print: LOOP_COMPLETE',
      ],
      'gates:\n  protect: [".gitattributes"]\n',
      { '.gitattributes': 'secrets/* filter=crypt\n' },
    );
    // The user's setup: the key is committed through the filter before the run.
    git(dir, 'config', 'filter.crypt.clean', 'tr a-z n-za-m');
    git(dir, 'config', 'filter.crypt.smudge', 'tr a-z n-za-m');
    git(dir, 'config', 'filter.crypt.required', 'true');
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'secrets', 'key'), 'topsecret-value-1\n');
    git(dir, 'add', 'secrets/key');
    git(dir, 'commit', '-qm', 'key');
    const attributes = join(dir, '.git', 'info', 'attributes');
    const before = existsSync(attributes) ? readFileSync(attributes, 'utf8') : null;
    expect(git(dir, 'cat-file', '-p', 'HEAD:secrets/key')).not.toContain('topsecret');
    const head = git(dir, 'rev-parse', 'HEAD');
    const record = await attack(dir);
    expect(record).toMatchObject({
      verdict: 'gate_tampered',
      commit: null,
      tampered: ['.git/info/attributes'],
    });
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dir, 'cat-file', '-p', 'HEAD:secrets/key')).not.toContain('topsecret');
    expect(existsSync(attributes) ? readFileSync(attributes, 'utf8') : null).toBe(before);
  });

  it('.git/objects/info/alternates naming another object store is gate_tampered and removed', async () => {
    const d = elsewhere();
    const dir = project([
      sh(
        `git init -q --bare ${d}/store && echo ${d}/store/objects > .git/objects/info/alternates && echo better > src/app.ts`,
      ),
      'print: LOOP_COMPLETE',
    ]);
    const head = git(dir, 'rev-parse', 'HEAD');
    const record = await attack(dir);
    expect(record).toMatchObject({
      verdict: 'gate_tampered',
      commit: null,
      tampered: ['.git/objects/info/alternates'],
    });
    expect(existsSync(join(dir, '.git', 'objects', 'info', 'alternates'))).toBe(false);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('the .git directory moved away and replaced by a gitfile to it stops the run before any git call runs its filter', async () => {
    const d = elsewhere();
    const shadow = join(d, 'shadow');
    const marker = join(d, 'PWNED');
    const filter = `sh -c 'echo ran >> ${marker}; cat'`;
    const dir = project([
      sh(
        `mv .git ${shadow} && git --git-dir=${shadow} config filter.x.clean "${filter}" && echo '* filter=x' > ${shadow}/info/attributes && echo "gitdir: ${shadow}" > .git && echo better > src/app.ts`,
      ),
      'print: LOOP_COMPLETE',
    ]);
    const r = await runRalph(['run'], dir);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(markedProcesses(dir)).toEqual([]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('was replaced during the iteration');
    expect(existsSync(marker)).toBe(false);
    expect(git(shadow, 'log', '--format=%s')).toBe('initial\n');
  });

  it('.git/commondir planted by an agent killed mid-iteration is put back by --resume before its git calls run the filter', async () => {
    const d = elsewhere();
    const shadow = join(d, 'shadow');
    const marker = join(d, 'PWNED');
    const filter = `sh -c 'echo ran >> ${marker}; cat'`;
    const plant = `mkdir -p dist; touch dist/tried; cp -r .git ${shadow} && git --git-dir=${shadow} config filter.x.clean "${filter}" && echo '* filter=x' > ${shadow}/info/attributes && echo ${shadow} > .git/commondir && echo better > src/app.ts; echo $PPID > dist/agent.pid`;
    const dir = project([]);
    writeFileSync(
      join(dir, 'fake-agent.yml'),
      [
        'turns:',
        '  - when: { file_missing: dist/tried }',
        `    do: [{ run: ${JSON.stringify(plant)} }, { hang: true }]`,
        '  - do: [{ print: LOOP_COMPLETE }]',
      ].join('\n'),
    );
    git(dir, 'commit', '-qam', 'script');
    const head = git(dir, 'rev-parse', 'HEAD');
    const first = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'dist', 'agent.pid')), 15_000, 'the first try');
    first.child.kill('SIGKILL');
    await first.done;
    const r = await runRalph(['run', '--resume'], dir);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('.git/commondir changed since run');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(dir, '.git', 'commondir'))).toBe(false);
    expect(git(shadow, 'rev-parse', 'HEAD')).toBe(head);
    // The refused resume stopped before it reaps what the killed try left running: the test does.
    killLeftovers([dir]);
  });
});
