import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  makeWorkspace,
  RALPH,
  ROOT,
  readState,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

const seed000 = (name: string) => readFileSync(join(ROOT, 'test', 'fixtures', 'seed-000', name), 'utf8');

describe('config errors', () => {
  it('reports a misspelled key as ralph.yml:L:C with the closest valid key, for run and config validate', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': 'event_loop:\n  max_iterations: 5\n  cooldown_delay_secs: 3\ncli:\n  backend: fake\n',
    });
    for (const args of [['run'], ['config', 'validate']]) {
      const r = await runRalph(args, dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('ralph.yml:3:3');
      expect(r.stderr).toContain('did you mean "cooldown_delay_seconds"');
    }
    expect(existsSync(join(dir, '.ralph'))).toBe(false);
  });

  it('reports a bad value at its position and a bad --set by its flag', async () => {
    const dir = makeWorkspace({ 'ralph.yml': 'event_loop:\n  max_iterations: many\n' });
    const r = await runRalph(['config', 'validate'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ralph\.yml:2:19: event_loop\.max_iterations: .*number/);
    const dir2 = makeWorkspace({});
    const r2 = await runRalph(['config', 'validate', '--set', 'event_loop.max_iterations=-1'], dir2);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('--set event_loop.max_iterations=-1');
  });

  it("accepts seed 000's ralph.yml unchanged", async () => {
    const dir = makeWorkspace({ 'ralph.yml': seed000('ralph.yml'), 'PROMPT.md': seed000('PROMPT.md') });
    const r = await runRalph(['config', 'validate'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('valid (backend claude, 3 hats)');
    const show = await runRalph(['config', 'show', '--set', 'event_loop.cooldown_delay_seconds=1'], dir);
    expect(show.stdout).toContain('cooldown_delay_seconds: 1');
    expect(show.stdout).toContain('persistent: true');
  });
});

describe('ralph demo', () => {
  it("runs seed 000's board with the scripted agent to completion by itself and says where the artifacts are", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-demo-test-'));
    try {
      const r = await runRalph(['demo', '--dir', dir], ROOT);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('iteration 13/20 · board_scanner');
      expect(r.stdout).toContain(`Artifacts in ${dir}`);
      const state = readState(dir);
      expect(state).toMatchObject({ status: 'completed', stop_reason: 'completed', iterations: 13 });
      expect(readdirSync(join(dir, 'done')).sort()).toEqual(['item-1.txt', 'item-2.txt', 'item-3.txt']);
      expect(readdirSync(join(dir, 'work'))).toEqual([]);
      // The seed's ralph.yml is used unchanged; the demo's choices are --set overrides.
      expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toBe(seed000('ralph.yml'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('ralph demo, what to try next', () => {
  /** `ralph demo` with a `ralph` on PATH made by `place` (as `npm install -g` puts it there). */
  async function tryLine(place: (bin: string) => void): Promise<{ line: string; dir: string }> {
    const bin = makeWorkspace({});
    place(join(bin, 'ralph'));
    const dir = join(makeWorkspace({}), 'demo');
    const r = await runRalph(['demo', '--dir', dir, '-q'], ROOT, {
      PATH: `${bin}${delimiter}${process.env.PATH}`,
    });
    expect(r.code, r.stderr).toBe(0);
    return { line: /^Try: .*$/m.exec(r.stdout)?.[0] ?? r.stdout, dir };
  }

  it('says `ralph events` when the ralph on PATH is this CLI (an installed bin links to it)', async () => {
    const { line, dir } = await tryLine((at) => symlinkSync(RALPH, at));
    expect(line).toBe(`Try: cd ${dir} && ralph events && ralph hats graph`);
  }, 90_000);

  it('says `node …/bin/ralph events` when the ralph on PATH is another program', async () => {
    const { line, dir } = await tryLine((at) => {
      writeFileSync(at, '#!/bin/sh\necho another ralph\n');
      chmodSync(at, 0o755);
    });
    expect(line).toBe(`Try: cd ${dir} && node ${RALPH} events && node ${RALPH} hats graph`);
  }, 90_000);
});

describe('ralph demo, interrupted', () => {
  it('says the exact command that goes on with it (its overrides included), not the artifacts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-demo-test-'));
    try {
      const demo = startRalph(['demo', '--dir', dir], ROOT);
      await waitFor(() => demo.stdout().includes('iteration 2/20'), 20_000, 'the demo under way');
      demo.child.kill('SIGINT');
      const r = await demo.done;
      expect(r.code).toBe(130);
      expect(r.stdout).not.toContain('Artifacts in');
      const hint = /cd (\S+) && node \S+ (run --resume .*)$/m.exec(r.stdout);
      expect(hint?.[1]).toBe(dir);
      expect(hint?.[2]).toContain('--set cli.backend=fake');
      // Following it finishes the demo.
      const args = (hint?.[2] ?? '').split(' ');
      const again = await runRalph([...args, '--no-tui'], dir);
      expect(again.code, again.stderr).toBe(0);
      expect(readdirSync(join(dir, 'done')).sort()).toEqual(['item-1.txt', 'item-2.txt', 'item-3.txt']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('ralph demo --dir', () => {
  it('refuses a non-empty directory without --force and leaves its files alone; --force writes there', async () => {
    const dir = makeWorkspace({ 'PROMPT.md': 'my own prompt\n', 'notes.txt': 'keep\n' });
    const r = await runRalph(['demo', '--dir', dir, '-q'], ROOT);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${dir} is not empty`);
    expect(r.stderr).toContain('--force');
    expect(readFileSync(join(dir, 'PROMPT.md'), 'utf8')).toBe('my own prompt\n');
    expect(readdirSync(dir).sort()).toEqual(['PROMPT.md', 'notes.txt']);

    const forced = await runRalph(['demo', '--dir', dir, '-q', '--force'], ROOT);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('keep\n');
  }, 90_000);
});

describe('help', () => {
  it('lists the commands and exits 0', async () => {
    const r = await runRalph(['--help'], ROOT);
    expect(r.code).toBe(0);
    for (const cmd of ['run', 'status', 'stop', 'config', 'emit', 'demo']) expect(r.stdout).toContain(cmd);
  });

  it('prints the package version, and package.json installs the command from a file that exists', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const r = await runRalph(['--version'], ROOT);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
    // `npm install -g` links bin.ralph; a path that does not exist gives no command at all.
    expect(pkg.bin.ralph).toBeDefined();
    expect(existsSync(join(ROOT, pkg.bin.ralph))).toBe(true);
    expect(pkg.name).not.toBe('ralph');
  });
});
