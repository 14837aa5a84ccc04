import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markedProcesses } from '../helpers/marked-processes.ts';
import { makeWorkspace, readState, runRalph } from '../helpers/workspace.ts';

/**
 * Exactly once, for a kill at any instruction between durable writes: Ralph is SIGKILLed right
 * before and right after each of its durable writes in turn (RALPH_FAULT_KILL_*_WRITE), then
 * resumed. Every completed iteration is recorded once, no agent runs past completion, nothing is
 * left behind — for every write point of a two-iteration run, enumerated until a run gets through.
 */
/**
 * The agent: a shell command (a node start per iteration would be most of each run's time), which
 * logs its call and prints a line; iteration 1's says step one is done, the next one completes.
 * Ralph's writes are the same, one for one, as with the scripted fake agent printing the same lines.
 */
const AGENT =
  'echo $RALPH_ITERATION >> calls.log; if [ "$RALPH_ITERATION" = 1 ]; then echo "step one done"; else echo LOOP_COMPLETE; fi';

function workspace(): string {
  return makeWorkspace({
    'PROMPT.md': 'Do the two steps.\n',
    'ralph.yml': [
      'event_loop:',
      '  prompt_file: PROMPT.md',
      '  max_iterations: 5',
      'cli:',
      '  backend: custom',
      '  command: sh',
      `  args: ["-c", ${JSON.stringify(AGENT)}]`,
    ].join('\n'),
  });
}

/** Temp files of atomic writes (`name.<number>`) or of the lock, anywhere under .ralph/. */
function leftovers(dir: string): string[] {
  const root = join(dir, '.ralph');
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
    (p) =>
      /(^|\/)(state\.json|current-events|\.gitignore|tasks\.jsonl|scratchpad\.md)\.\d+$/.test(p) ||
      p.endsWith('.tmp'),
  );
}

/**
 * The iterations recorded as done. An attempt cut short by a signal is recorded too, with verdict
 * `aborted` (the iteration then re-runs on --resume); it is not a completed iteration.
 */
function recordedIterations(dir: string): number[] {
  const file = join(dir, '.ralph', 'runs', readState(dir).run_id, 'iterations.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
    .filter((r) => r.verdict !== 'aborted')
    .map((r) => r.iteration);
}

/** Kills Ralph at write `n` (`when` it), then resumes until the run ends; what the user sees. */
async function crashAndResume(when: 'BEFORE' | 'AFTER', n: number) {
  const dir = workspace();
  const first = await runRalph(['run'], dir, { [`RALPH_FAULT_KILL_${when}_WRITE`]: String(n) });
  if (first.signal !== 'SIGKILL') return { dir, killed: false, first };
  // Killed after the run was saved as completed: there is nothing to resume (a user sees it in status).
  if (existsSync(join(dir, '.ralph', 'state.json')) && readState(dir).status === 'completed')
    return { dir, killed: true, first, resumed: undefined };
  const resumed = await runRalph(['run', '--resume'], dir);
  return { dir, killed: true, first, resumed };
}

describe('kill -9 at every durable write of an iteration, then --resume', () => {
  for (const when of ['BEFORE', 'AFTER'] as const) {
    it(`${when.toLowerCase()} each write: every iteration recorded once, no agent call past completion, no temp files`, async () => {
      let points = 0;
      for (let n = 1; n < 60; n++) {
        const { dir, killed, first, resumed } = await crashAndResume(when, n);
        const where = `killed ${when.toLowerCase()} write ${n}`;
        if (!killed) {
          // Past the last write: the run went through untouched.
          expect(first.code, where).toBe(0);
          break;
        }
        points++;
        if (resumed) expect(resumed.code, `${where}\n${resumed.stdout}${resumed.stderr}`).toBe(0);
        expect(readState(dir), where).toMatchObject({
          status: 'completed',
          stop_reason: 'completed',
          iterations: 2,
        });
        expect(recordedIterations(dir), where).toEqual([1, 2]);
        const calls = readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n');
        // The interrupted iteration may run again; nothing runs after the completing one.
        expect(calls.length, `${where}: ${calls}`).toBeLessThanOrEqual(3);
        expect(calls.at(-1), where).toBe('2');
        expect(leftovers(dir), where).toEqual([]);
        // A lock left by the killed Ralph is taken over by the resume (and released at its end).
        if (resumed) expect(existsSync(join(dir, '.ralph', 'loop.lock')), where).toBe(false);
      }
      // The enumeration really covered a run's writes (lock, ignore file, state, events, records).
      expect(points).toBeGreaterThanOrEqual(8);
    }, 180_000);
  }
});

/** Ctrl-C (once or twice), SIGTERM and SIGHUP, each delivered right after a durable write. */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGINT,SIGINT'];

describe('a signal at every phase of a run (right after each durable write), then --resume', () => {
  for (const offset of [0, 2]) {
    it(`signals ${SIGNALS.slice(offset).concat(SIGNALS.slice(0, offset)).join(' / ')} in turn: exit 130 or done, consistent state, resumable, nothing left running`, async () => {
      let points = 0;
      for (let n = 1; n < 60; n++) {
        const signal = SIGNALS[(n + offset) % SIGNALS.length]!;
        const dir = workspace();
        const first = await runRalph(['run'], dir, { RALPH_FAULT_SIGNAL_AFTER_WRITE: `${n}:${signal}` });
        const where = `${signal} after write ${n}`;
        expect(first.signal, where).toBeNull();
        expect(markedProcesses(dir), where).toEqual([]);
        const state = readState(dir);
        if (first.code === 0) {
          // The signal came after the completing iteration was saved (only a completion outranks an
          // interrupt), or there was no write n: the run is complete, and the enumeration done.
          expect(state, where).toMatchObject({ status: 'completed', iterations: 2 });
          expect(recordedIterations(dir), where).toEqual([1, 2]);
          break;
        }
        points++;
        expect(first.code, `${where}\n${first.stdout}${first.stderr}`).toBe(130);
        expect(state.status, where).toBe('interrupted');
        expect(existsSync(join(dir, '.ralph', 'loop.lock')), where).toBe(false);
        const resumed = await runRalph(['run', '--resume'], dir);
        expect(resumed.code, `${where}\n${resumed.stdout}${resumed.stderr}`).toBe(0);
        expect(readState(dir), where).toMatchObject({ status: 'completed', iterations: 2 });
        expect(recordedIterations(dir), where).toEqual([1, 2]);
        expect(leftovers(dir), where).toEqual([]);
      }
      // Every write before the completing iteration is saved (the later ones end in a completed run).
      expect(points).toBeGreaterThanOrEqual(6);
    }, 180_000);
  }
});

/** The errnos injected, with the words a user must see for each. */
const ERRNOS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  ENOENT: 'no such file or directory',
};

/** One write of a run, as RALPH_FAULT_TRACE_WRITES lists it. */
interface WritePoint {
  kind: 'durable' | 'output';
  n: number;
  path: string;
  text?: string;
}

/** Every write of an undisturbed run, in order (durable writes and the log and stream writes). */
async function writePoints(): Promise<WritePoint[]> {
  const dir = workspace();
  const trace = join(makeWorkspace(), 'writes.jsonl');
  const r = await runRalph(['run'], dir, { RALPH_FAULT_TRACE_WRITES: trace });
  expect(r.code, r.stderr).toBe(0);
  expect(recordedIterations(dir)).toEqual([1, 2]);
  return readFileSync(trace, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** A written path as the message names it, with the run id (new in every run) as a pattern. */
function pathPattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(escaped.replace(/runs\/\d{8}-\d{6}-[0-9a-f]{6}\//, 'runs/\\d{8}-\\d{6}-[0-9a-f]{6}/'));
}

/**
 * Fails write `point` of a run with `errno`, then goes on as the message says; what must hold after:
 * no stack trace, the file and the errno named, and the same end and records as an undisturbed run.
 * True when the failure stopped the run (a write in the workspace).
 */
async function failAndGoOn(point: WritePoint, errno: string): Promise<boolean> {
  const dir = workspace();
  const variable =
    point.kind === 'durable' ? 'RALPH_FAULT_ERRNO_AT_WRITE' : 'RALPH_FAULT_ERRNO_AT_OUTPUT_WRITE';
  const first = await runRalph(['run'], dir, { [variable]: `${point.n}:${errno}` });
  const where = `${errno} at ${point.kind} write ${point.n} (${point.path})\n${first.stdout}${first.stderr}`;
  expect(first.stderr, where).not.toMatch(/^ {4}at /m);
  expect(first.stderr, where).not.toContain('unexpected error');
  const inWorkspace = /\/ralph-test-[^/]+\/\.ralph\//.test(point.path);
  if (!inWorkspace) {
    // The per-user registry is a convenience: failing to write it never stops a run.
    expect(first.code, where).toBe(0);
  } else {
    expect(first.code, where).toBe(1);
    // The trace came from another workspace: the same file in this one.
    const named = pathPattern(point.path.replace(/^.*\/ralph-test-[^/]+\//, `${dir}/`));
    expect(first.stderr, where).toMatch(
      new RegExp(`ralph: cannot write ${named.source}: ${ERRNOS[errno]} \\(${errno}\\): `),
    );
    expect(existsSync(join(dir, '.ralph', 'loop.lock')), where).toBe(false);
    const state = join(dir, '.ralph', 'state.json');
    if (existsSync(state) && readState(dir).status === 'completed') {
      // The end was saved before the failure (the log's last line): nothing left to resume.
      expect(first.stderr, where).not.toContain('--resume');
    } else if (existsSync(state)) {
      expect(first.stderr, where).toContain('then run `ralph run --resume`');
      const resumed = await runRalph(['run', '--resume'], dir);
      expect(resumed.code, `${where}\n${resumed.stdout}${resumed.stderr}`).toBe(0);
    } else {
      // The run's first state write failed: nothing started, the command is simply run again.
      expect(first.stderr, where).toContain('then run the command again');
      const again = await runRalph(['run'], dir);
      expect(again.code, `${where}\n${again.stdout}${again.stderr}`).toBe(0);
    }
  }
  expect(readState(dir), where).toMatchObject({
    status: 'completed',
    stop_reason: 'completed',
    iterations: 2,
  });
  // Never lost, never twice: the same records as an undisturbed run (no aborted attempt either).
  const records = readFileSync(
    join(dir, '.ralph', 'runs', readState(dir).run_id, 'iterations.jsonl'),
    'utf8',
  );
  const iterations = records
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).iteration);
  expect(iterations, where).toEqual([1, 2]);
  const calls = readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n');
  expect(calls.length, `${where}: ${calls}`).toBeLessThanOrEqual(3);
  expect(calls.at(-1), where).toBe('2');
  expect(leftovers(dir), where).toEqual([]);
  expect(markedProcesses(dir), where).toEqual([]);
  return inWorkspace;
}

describe('a file-system failure (ENOSPC, EROFS, EACCES, ENOENT) at every write point, then --resume', () => {
  it('names the file and the errno in words, never a stack trace; --resume after it ends with the same records', async () => {
    const all = await writePoints();
    const durable = all.filter((p) => p.kind === 'durable');
    const output = all.filter((p) => p.kind === 'output');
    // Every durable write; of the log and stream writes, the first and the last one (the run's
    // header and end) and the agent's output (a disk filling up while the agent talks): iteration
    // 1's in the log, iteration 2's in the stream.
    const agentOutput = output.filter(
      (p) =>
        ['step one done\n', 'LOOP_COMPLETE\n'].includes(p.text ?? '') ||
        (p.text?.includes('"type":"agent.event"') && p.text.includes('"event":{"type":"text"')),
    );
    expect(
      agentOutput.map((p) => p.path.endsWith('.log')),
      JSON.stringify(output),
    ).toEqual([true, false, true, false]);
    const points = [...durable, output[0]!, agentOutput[0]!, agentOutput[3]!, output.at(-1)!];
    // The errnos in turn over the points: each point gets one, each errno several points.
    const codes = Object.keys(ERRNOS);
    const cases = points.map((point, i) => ({ point, errno: codes[i % codes.length]! }));
    // Two at a time: each case has its own workspace (the run time is mostly process start-up).
    const stopped: string[] = [];
    const queue = [...cases];
    const worker = async () => {
      for (let c = queue.shift(); c; c = queue.shift())
        if (await failAndGoOn(c.point, c.errno)) stopped.push(c.errno);
    };
    await Promise.all([worker(), worker()]);
    expect(stopped.length).toBeGreaterThanOrEqual(12);
    expect(new Set(stopped)).toEqual(new Set(codes));
  }, 180_000);
});
