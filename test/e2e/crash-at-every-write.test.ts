import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { markedProcesses } from '../helpers/marked-processes.ts';
import { cleanupWorkspaces, makeWorkspace, readState, runRalph } from '../helpers/workspace.ts';

afterAll(cleanupWorkspaces);

/**
 * Exactly once, for a kill at any instruction between durable writes: Ralph is SIGKILLed right
 * before and right after each of its durable writes in turn (RALPH_FAULT_KILL_*_WRITE), then
 * resumed. Every completed iteration is recorded once, no agent runs past completion, nothing is
 * left behind — for every write point of a two-iteration run, enumerated until a run gets through.
 */
const SCRIPT = [
  'turns:',
  '  - when: { iteration: 1 }',
  '    do: [{ run: "echo $RALPH_ITERATION >> calls.log" }, { print: "step one done" }]',
  '  - do: [{ run: "echo $RALPH_ITERATION >> calls.log" }, { print: "LOOP_COMPLETE" }]',
].join('\n');

function workspace(): string {
  return makeWorkspace({
    'PROMPT.md': 'Do the two steps.\n',
    'ralph.yml':
      'event_loop:\n  prompt_file: PROMPT.md\n  max_iterations: 5\ncli:\n  backend: fake\n  fake_script: agent.yml\n',
    'agent.yml': SCRIPT,
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
