import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { makeWorkspace, ROOT, runRalph } from '../helpers/workspace.ts';

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

/** The project is one commit, everything it wrote is in it, and its check left nothing untracked. */
function expectCommitted(dir: string, files: string[]): void {
  expect(git(dir, 'log', '--format=%s').trim()).toMatch(/^New .* project \(ralph new .*\)$/);
  const tracked = git(dir, 'ls-files').split('\n');
  for (const f of files) expect(tracked).toContain(f);
  expect(tracked.some((f) => f.startsWith('node_modules'))).toBe(false);
  expect(git(dir, 'status', '--porcelain')).toBe('');
}

/** `ralph run --dry-run` in the project: the config validates and the first prompt is its PROMPT.md. */
async function expectDryRun(dir: string): Promise<void> {
  const r = await runRalph(['run', '--dry-run'], dir);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('# first prompt');
  expect(r.stdout).toContain('Describe the work here');
}

describe('ralph new <template> DIR', () => {
  it('ts-lib: says to run npm install without node_modules; with them, its own check (tsc, vitest) passes', async () => {
    const parent = makeWorkspace();
    const bare = await runRalph(['new', 'ts-lib', 'word-lib'], parent);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('word-lib/node_modules is missing: run `npm install`');
    const dir = join(parent, 'word-lib');
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name).toBe('word-lib');
    const written = ['ralph.yml', 'PROMPT.md', 'package.json', 'tsconfig.json', '.gitignore'];
    expectCommitted(dir, [...written, 'src/index.ts', 'test/index.test.ts']);
    const yml = readFileSync(join(dir, 'ralph.yml'), 'utf8');
    expect(yml).toContain('command: npm test');
    expect(yml).toContain('affected: npx vitest related --run --passWithNoTests {files}');
    await expectDryRun(dir);

    // --force into a directory that holds only node_modules (this repository's: typescript, vitest).
    const linked = join(parent, 'linked');
    mkdirSync(linked);
    symlinkSync(join(ROOT, 'node_modules'), join(linked, 'node_modules'));
    const r = await runRalph(['new', 'ts-lib', 'linked', '--force'], parent);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/check: passed, npm test/);
    expectCommitted(linked, ['ralph.yml', 'src/index.ts']);
  });

  it('py-pkg: a src layout whose unittest check passes with python3 alone, module named after DIR', async () => {
    const parent = makeWorkspace();
    const r = await runRalph(['new', 'py-pkg', 'my-words', '--backend', 'codex'], parent);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/check: passed, PYTHONPATH=src python3 -m unittest discover/);
    expect(r.stdout).toMatch(/git: new repository, first commit [0-9a-f]{7}/);
    const dir = join(parent, 'my-words');
    expectCommitted(dir, [
      'pyproject.toml',
      'src/my_words/__init__.py',
      'src/my_words/words.py',
      'tests/test_words.py',
    ]);
    expect(readFileSync(join(dir, 'tests/test_words.py'), 'utf8')).toContain('from my_words.words import');
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toMatch(/backend: codex/);
    // The template's sandbox line, as `ralph init` treats a preset's: on where bwrap works, else said why not.
    if ((await probeSandbox()).ok) {
      expect(r.stdout).toContain('sandbox: on (bwrap works here; the agent can touch only this project)');
      expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toMatch(/^sandbox: on$/m);
    } else expect(r.stdout).toMatch(/^sandbox: left off \(/m);
    // The affected command with {tests} as Ralph expands it for a changed src/my_words/words.py.
    const affected = spawnSync('sh', ['-c', 'PYTHONPATH=src python3 -m unittest tests/test_words.py'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(affected.status, affected.stderr).toBe(0);
    expect(affected.stderr).toContain('Ran 3 tests');
    await expectDryRun(dir);
  });

  it('names the missing tool and how to install it: exit 1, the project still written and committed', async () => {
    const parent = makeWorkspace();
    // A PATH with node, git and sh only: no python3.
    const bin = join(parent, 'bin');
    mkdirSync(bin);
    for (const tool of ['node', 'git', 'sh']) {
      const path = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
      symlinkSync(path, join(bin, tool));
    }
    const r = await runRalph(['new', 'py-pkg', 'pkg'], parent, { PATH: bin });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('check: not run, `python3` is not on PATH: install Python 3.9 or newer');
    expectCommitted(join(parent, 'pkg'), ['pyproject.toml']);
  });

  it('refuses a non-empty DIR untouched; --force keeps the files that are there', async () => {
    const parent = makeWorkspace({ 'taken/README.md': 'mine\n' });
    const r = await runRalph(['new', 'py-pkg', 'taken', '--no-check'], parent);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not empty; choose a new directory, or pass --force');
    expect(readdirSync(join(parent, 'taken'))).toEqual(['README.md']);

    const forced = await runRalph(['new', 'py-pkg', 'taken', '--no-check', '--force'], parent);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('kept (already there, not overwritten): README.md');
    expect(forced.stdout).toContain('check: skipped (--no-check)');
    expect(readFileSync(join(parent, 'taken/README.md'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(parent, 'taken/pyproject.toml'))).toBe(true);
  });

  it('lists the templates (--list), and an unknown one gets the list', async () => {
    const parent = makeWorkspace();
    const list = await runRalph(['new', '--list'], parent);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ {2}ts-lib +TypeScript library/m);
    expect(list.stdout).toMatch(/^ {2}py-pkg +Python package/m);
    const unknown = await runRalph(['new', 'rust-bin', 'x'], parent);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown template "rust-bin"; available:');
    expect(unknown.stderr).toMatch(/ts-lib .*\n.*py-pkg/);
    expect(existsSync(join(parent, 'x'))).toBe(false);
  });

  it('inside an existing repository: no nested repository and no commit', async () => {
    const parent = makeWorkspace();
    git(parent, 'init', '-q');
    writeFileSync(join(parent, 'keep.txt'), 'x\n');
    const r = await runRalph(['new', 'py-pkg', 'packages/words', '--no-check'], parent);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('inside an existing repository, so no new one and no commit');
    expect(existsSync(join(parent, 'packages/words/.git'))).toBe(false);
    expect(spawnSync('git', ['rev-parse', 'HEAD'], { cwd: parent }).status).not.toBe(0);
  });
});
