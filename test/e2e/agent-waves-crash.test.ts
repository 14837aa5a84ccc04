import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

// Exactly once for agent waves (docs/guide/agent-waves.md#interrupted-mid-wave): Ralph killed with
// SIGKILL before and after each durable write of a wave's iteration (its members' events files,
// the batch of results, the state and record), then resumed. The wave runs again whole, and the
// collecting hat gets each member's result exactly once.

const YML = [
  'event_loop:',
  '  prompt_file: PROMPT.md',
  '  starting_event: review.start',
  '  completion_promise: review.complete',
  '  max_iterations: 8',
  'cli:',
  '  backend: custom',
  '  command: ./agent.sh',
  'hats:',
  '  coordinator:',
  '    triggers: [review.start]',
  '    publishes: [review.perspective]',
  '  reviewer:',
  '    triggers: [review.perspective]',
  '    publishes: [review.done]',
  '    concurrency: 2',
  '  synthesizer:',
  '    triggers: [review.done]',
  '    publishes: [review.complete]',
  '    aggregate: { mode: wait_for_all, timeout: 60 }',
  '',
].join('\n');

/** The synthesizer writes the results its prompt carries to seen.txt (replacing it: its last run counts). */
const AGENT = `#!/bin/sh
prompt=$(cat)
case "$RALPH_HAT" in
  coordinator) ralph wave emit review.perspective --payloads "ROLE: Rust" "ROLE: Frontend" "ROLE: Docs" ;;
  reviewer) ralph emit review.done "findings of $(printf '%s' "$prompt" | grep -o 'ROLE: [A-Za-z]*' | head -1)" ;;
  synthesizer) printf '%s\\n' "$prompt" | grep '^- review.done:' > seen.txt; ralph emit review.complete ;;
esac
echo done
`;

function workspace(): string {
  const dir = makeWorkspace({ 'PROMPT.md': 'Review it\n', 'ralph.yml': YML });
  writeFileSync(join(dir, 'agent.sh'), AGENT);
  chmodSync(join(dir, 'agent.sh'), 0o755);
  return dir;
}

/** The durable writes of a clean run, in order. */
async function durableWrites(): Promise<{ n: number; path: string }[]> {
  const dir = workspace();
  const trace = join(dir, 'trace.jsonl');
  const r = await runRalph(['run'], dir, { RALPH_FAULT_TRACE_WRITES: trace });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return readFileSync(trace, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; n: number; path: string })
    .filter((w) => w.kind === 'durable');
}

/** The durable writes of the wave's iteration in a clean run: from its members' first events file to the wave's record. */
async function waveWrites(): Promise<number[]> {
  const writes = await durableWrites();
  const first = writes.find((w) => w.path.includes('.waves/'))!.n;
  // The second record appended to iterations.jsonl is the wave's.
  const record = writes.filter((w) => w.path.endsWith('iterations.jsonl'))[1]!.n;
  return writes.filter((w) => w.n >= first && w.n <= record).map((w) => w.n);
}

const workspaces: string[] = [];
afterEach(() => killLeftovers(workspaces.splice(0)));

describe('kill -9 at every durable write of a wave, then --resume', () => {
  it('the run completes, each iteration recorded once, each member’s result handed on once, nothing left running', async () => {
    const points = await waveWrites();
    expect(points.length).toBeGreaterThanOrEqual(5);
    for (const when of ['BEFORE', 'AFTER'] as const)
      for (const n of points) {
        const where = `killed ${when.toLowerCase()} write ${n}`;
        const dir = workspace();
        workspaces.push(dir);
        const first = await runRalph(['run'], dir, { [`RALPH_FAULT_KILL_${when}_WRITE`]: String(n) });
        expect(first.signal, where).toBe('SIGKILL');
        const resumed = await runRalph(['run', '--resume'], dir);
        expect(resumed.code, `${where}\n${resumed.stdout}${resumed.stderr}`).toBe(0);
        expect(readState(dir), where).toMatchObject({ status: 'completed', iterations: 3 });
        const done = readRecords(dir).filter((r) => r.verdict !== 'aborted');
        expect(
          done.map((r) => [r.iteration, r.hat]),
          where,
        ).toEqual([
          [1, 'coordinator'],
          [2, 'reviewer'],
          [3, 'synthesizer'],
        ]);
        expect(readFileSync(join(dir, 'seen.txt'), 'utf8').trim().split('\n').sort(), where).toEqual([
          '- review.done: findings of ROLE: Docs',
          '- review.done: findings of ROLE: Frontend',
          '- review.done: findings of ROLE: Rust',
        ]);
        expect(markedProcesses(dir), where).toEqual([]);
      }
  }, 300_000);

  it('a full disk at a member’s events file: one line naming it, nothing left running; --resume runs the wave', async () => {
    const at = (await durableWrites()).find((w) => w.path.includes('.waves/'))!;
    const dir = workspace();
    workspaces.push(dir);
    const r = await runRalph(['run'], dir, { RALPH_FAULT_ERRNO_AT_WRITE: `${at.n}:ENOSPC` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/\.waves\/2-0\.jsonl/);
    expect(r.stdout + r.stderr).not.toMatch(/^\s+at /m);
    expect(markedProcesses(dir)).toEqual([]);
    const resumed = await runRalph(['run', '--resume'], dir);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(readFileSync(join(dir, 'seen.txt'), 'utf8').trim().split('\n')).toHaveLength(3);
  });
});
