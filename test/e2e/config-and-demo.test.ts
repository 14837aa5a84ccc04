import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  makeWorkspace,
  RALPH,
  ROOT,
  readState,
  runRalph,
  seed000,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

// Config errors, --help and --version run in process: test/cli/config-errors-and-help.test.ts.

/** `ralph demo` into a new directory, with a `ralph` on PATH made by `place` (as `npm install -g` puts it there). */
async function demoWith(place: (bin: string) => void, flags: string[] = []) {
  const bin = makeWorkspace({});
  place(join(bin, 'ralph'));
  const dir = join(makeWorkspace({}), 'demo');
  const r = await runRalph(['demo', '--dir', dir, ...flags], ROOT, {
    PATH: `${bin}${delimiter}${process.env.PATH}`,
  });
  return { r, dir, line: /^Try: .*$/m.exec(r.stdout)?.[0] ?? r.stdout };
}

describe('ralph demo, to the end', () => {
  // One whole demo (13 iterations) for the first two tests: the ralph on PATH links to this CLI.
  let linked: Awaited<ReturnType<typeof demoWith>>;
  beforeAll(async () => {
    linked = await demoWith((at) => symlinkSync(RALPH, at));
  }, 90_000);

  describe('ralph demo', () => {
    it("runs seed 000's board with the scripted agent to completion by itself and says where the artifacts are", () => {
      const { r, dir } = linked;
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('iteration 13/20 · board_scanner');
      expect(r.stdout).toContain(`Artifacts in ${dir}`);
      const state = readState(dir);
      expect(state).toMatchObject({ status: 'completed', stop_reason: 'completed', iterations: 13 });
      expect(readdirSync(join(dir, 'done')).sort()).toEqual(['item-1.txt', 'item-2.txt', 'item-3.txt']);
      expect(readdirSync(join(dir, 'work'))).toEqual([]);
      // The seed's ralph.yml is used unchanged; the demo's choices are --set overrides.
      expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toBe(seed000('ralph.yml'));
    });
  });

  describe('ralph demo, what to try next', () => {
    it('says `ralph events` when the ralph on PATH is this CLI (an installed bin links to it)', () => {
      const { r, line, dir } = linked;
      expect(r.code, r.stderr).toBe(0);
      expect(line).toBe(`Try: cd ${dir} && ralph events && ralph hats graph`);
    });

    it('says `node …/bin/ralph events` when the ralph on PATH is another program', async () => {
      const { r, line, dir } = await demoWith(
        (at) => {
          writeFileSync(at, '#!/bin/sh\necho another ralph\n');
          chmodSync(at, 0o755);
        },
        ['-q'],
      );
      expect(r.code, r.stderr).toBe(0);
      expect(line).toBe(`Try: cd ${dir} && node ${RALPH} events && node ${RALPH} hats graph`);
    }, 90_000);
  });
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
