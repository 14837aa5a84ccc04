import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeConfig, makeWorkspace, readState, runRalph } from '../helpers/workspace.ts';

const isRoot = process.getuid?.() === 0;

/** A workspace whose previous run stopped at the iteration limit (resumable). */
async function stoppedRun(): Promise<string> {
  const dir = makeWorkspace({
    'PROMPT.md': 'work\n',
    'ralph.yml': fakeConfig({ max_iterations: 1 }),
    'fake-agent.yml': 'turns:\n  - do: [{ print: ok }]\n',
  });
  const r = await runRalph(['run'], dir);
  expect(r.code, r.stderr).toBe(2);
  return dir;
}

const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at .+\(.*:\d+:\d+\)$/m);

describe('a damaged .ralph/state.json', () => {
  const damage: [string, (text: string) => string, RegExp][] = [
    [
      'parses but lacks fields',
      (t) => JSON.stringify({ ...JSON.parse(t), status: undefined, tokens: undefined }),
      /status: .*tokens/,
    ],
    [
      'has an optional field of the wrong shape',
      (t) => JSON.stringify({ ...JSON.parse(t), parked: 'soon', last_record: { iteration: 'two' } }),
      /parked: .*last_record\.iteration/,
    ],
    ['is truncated', (t) => t.slice(0, t.length / 2), /JSON/],
    ['is garbage', () => '\u0000\u0001not json at all', /JSON/],
    ['is empty', () => '', /the file is empty/],
  ];
  it.each(damage)(
    'that %s: status and --resume say which file and what to do, and change nothing',
    async (_n, hurt, detail) => {
      const dir = await stoppedRun();
      const file = join(dir, '.ralph', 'state.json');
      const damaged = hurt(readFileSync(file, 'utf8'));
      writeFileSync(file, damaged);
      for (const args of [['status'], ['status', '--json'], ['run', '--resume']]) {
        const r = await runRalph(args, dir);
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr).toContain(`${file} is damaged (`);
        expect(r.stderr).toMatch(detail);
        expect(r.stderr).toContain('`ralph run --fresh`');
        noStackTrace(r.stderr);
      }
      expect(readFileSync(file, 'utf8')).toBe(damaged);
      expect(existsSync(join(dir, '.ralph', 'loop.lock'))).toBe(false);
    },
  );

  it('--fresh keeps the damaged file aside and starts a new run', async () => {
    const dir = await stoppedRun();
    writeFileSync(join(dir, '.ralph', 'state.json'), '{"version": 1}');
    const r = await runRalph(['run', '--fresh'], dir);
    expect(r.code, r.stderr).toBe(2);
    const aside = readdirSync(join(dir, '.ralph')).filter((f) => f.startsWith('state.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, '.ralph', aside[0]!), 'utf8')).toBe('{"version": 1}');
  });
});

describe('a torn last line in a JSON-lines file', () => {
  it('iterations.jsonl: the next record starts on its own line and is kept', async () => {
    const dir = await stoppedRun();
    const records = join(dir, '.ralph', 'runs', readState(dir).run_id, 'iterations.jsonl');
    writeFileSync(records, `${readFileSync(records, 'utf8')}{"run_id":"torn","itera`);
    const r = await runRalph(['run', '--resume', '--max-iterations', '2'], dir);
    expect(r.code, r.stderr).toBe(2);
    const lines = readFileSync(records, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe('{"run_id":"torn","itera');
    expect(JSON.parse(lines[2]!).iteration).toBe(2);
  });

  it('the events file: an event emitted after a torn line is not lost', async () => {
    const dir = await stoppedRun();
    const events = join(dir, readState(dir).events_file);
    writeFileSync(events, `${readFileSync(events, 'utf8')}{"topic":"half`);
    const emit = await runRalph(['emit', 'after.tear', 'kept'], dir);
    expect(emit.code, emit.stderr).toBe(0);
    const r = await runRalph(['events', '--format', 'json'], dir);
    const shown = JSON.parse(r.stdout);
    expect(shown.map((e: { topic: string }) => e.topic)).toContain('after.tear');
    // What was skipped is said, on stderr (stdout stays valid JSON), and stays in the file.
    expect(r.stderr).toContain(`ralph: ${events}: skipped 1 line(s) that are not events (first: not JSON`);
    expect(readFileSync(events, 'utf8')).toContain('{"topic":"half');
  });

  it('ralph events names an unfinished last line (a crash mid-write) instead of hiding it', async () => {
    const dir = await stoppedRun();
    const events = join(dir, readState(dir).events_file);
    writeFileSync(events, `${readFileSync(events, 'utf8')}{"topic":"cut`);
    const r = await runRalph(['events'], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'skipped an unfinished last line (a write cut short); the file is left as it is',
    );
  });
});

describe('.ralph/runs/ deleted (a user freeing space)', () => {
  for (const args of [['run'], ['run', '--resume', '--max-iterations', '2']]) {
    it(`\`ralph ${args.join(' ')}\` makes it again and records the run there`, async () => {
      const dir = await stoppedRun();
      const runs = join(dir, '.ralph', 'runs');
      rmSync(runs, { recursive: true });
      const r = await runRalph(args, dir);
      expect(r.code, r.stderr).toBe(2);
      noStackTrace(r.stderr);
      expect(r.stderr).not.toContain('unexpected error');
      // Only the records written since: what the user deleted is not put back.
      const records = readFileSync(join(runs, readState(dir).run_id, 'iterations.jsonl'), 'utf8');
      const iterations = records
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).iteration);
      expect(iterations).toEqual(args.includes('--resume') ? [2] : [1]);
    });
  }
});

describe.skipIf(!existsSync('/dev/full'))('a full disk under the run log (the kernel says ENOSPC)', () => {
  it('names the log and "no space left on device", keeps the run resumable, and --resume finishes it', async () => {
    const dir = await stoppedRun();
    const log = join(dir, readState(dir).log_file);
    rmSync(log);
    // /dev/full: every write fails with ENOSPC, as on a full disk.
    symlinkSync('/dev/full', log);
    const r = await runRalph(['run', '--resume', '--max-iterations', '2'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `ralph: cannot write ${log}: no space left on device (ENOSPC): free some space, then run \`ralph run --resume\``,
    );
    noStackTrace(r.stderr);
    expect(existsSync(join(dir, '.ralph', 'loop.lock'))).toBe(false);
    rmSync(log);
    const resumed = await runRalph(['run', '--resume', '--max-iterations', '2'], dir);
    expect(resumed.code, resumed.stderr).toBe(2);
    const records = readFileSync(
      join(dir, '.ralph', 'runs', readState(dir).run_id, 'iterations.jsonl'),
      'utf8',
    );
    expect(
      records
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).iteration),
    ).toEqual([1, 2]);
  });
});

describe('.ralph/runs/ that cannot be written', () => {
  it('a file where the directory should be: a clear error, the lock released, the run not left running', async () => {
    const dir = await stoppedRun();
    const runs = join(dir, '.ralph', 'runs');
    rmSync(runs, { recursive: true });
    writeFileSync(runs, 'not a directory');
    const r = await runRalph(['run', '--fresh'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /ralph: cannot write .*\.ralph\/runs.*: a part of the path is a file, not a directory/,
    );
    noStackTrace(r.stderr);
    expect(existsSync(join(dir, '.ralph', 'loop.lock'))).toBe(false);
    expect(readState(dir).status).not.toBe('running');
  });

  it.skipIf(isRoot)('a read-only runs/ directory: permission denied, named, lock released', async () => {
    const dir = await stoppedRun();
    const runs = join(dir, '.ralph', 'runs');
    chmodSync(runs, 0o555);
    try {
      const r = await runRalph(['run', '--fresh'], dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/ralph: cannot write .*\.ralph\/runs.*: permission denied/);
      noStackTrace(r.stderr);
      expect(existsSync(join(dir, '.ralph', 'loop.lock'))).toBe(false);
      expect(readState(dir).status).not.toBe('running');
    } finally {
      chmodSync(runs, 0o755);
    }
  });
});
