import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { fakeConfig, readRecords, readState, removeWhenDone, runRalph } from '../helpers/workspace.ts';

const BENCH = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'metric', 'bench.cjs'), 'utf8');

/** One iteration of the fake agent: writes value.txt and says its idea on the last line. */
const turn = (iteration: number, value: string, idea: string) => [
  `  - when: { iteration: ${iteration} }`,
  '    do:',
  `      - save_prompt: .ralph/p${iteration}.md`,
  `      - write: { path: value.txt, content: "${value}\\n" }`,
  `      - print: "${idea}"`,
];

/**
 * A project whose benchmark prints value.txt plus noise that spreads three repeats by 3
 * (test/fixtures/metric/bench.cjs); the noise's position lives outside the repository.
 */
function project(metric: string, turns: string[][], maxIterations = 6): string {
  const dir = makeGitWorkspace({
    'PROMPT.md': 'make the benchmark faster\n',
    'value.txt': '100\n',
    'bench.cjs': BENCH,
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'fake-agent.yml': ['turns:', ...turns.flat()].join('\n'),
  });
  const noise = removeWhenDone(`${dir}.noise`);
  const config = `${fakeConfig({ max_iterations: maxIterations })}git:\n  commit: true\nmetric:\n  command: METRIC_NOISE_STATE=${noise} node bench.cjs${metric}`;
  return commitConfig(dir, config);
}

/** Writes ralph.yml and commits it: the run starts from a clean tree. */
function commitConfig(dir: string, config: string): string {
  writeFileSync(join(dir, 'ralph.yml'), config);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'ralph.yml');
  return dir;
}

function attempts(dir: string): Record<string, any>[] {
  return readFileSync(join(dir, '.ralph', 'metric', 'attempts.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('metric: keep only what improves', () => {
  it('rolls back noise-level "improvements", keeps real ones, feeds failed ideas back, and stops at the target with the best commit as HEAD', async () => {
    const dir = project('\n  direction: min\n  pattern: "time: ([0-9.]+) ms"\n  repeats: 3\n  target: 80\n', [
      turn(1, '99', 'idea: shave one millisecond'),
      turn(2, '90', 'idea: cache the parser'),
      turn(3, '89.5', 'idea: inline the hot loop'),
      turn(4, '79', 'idea: precompute the table'),
    ]);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const state = readState(dir);
    expect(state.stop_reason).toBe('metric_target');
    expect(state.stop_message).toContain('metric target reached: 79.2');
    const runId = state.run_id as string;

    const a = attempts(dir);
    expect(a.map((x) => [x.iteration, x.verdict])).toEqual([
      [0, 'baseline'],
      [1, 'not_kept'],
      [2, 'kept'],
      [3, 'not_kept'],
      [4, 'kept'],
    ]);
    expect(a[0]).toMatchObject({ value: 100.2, spread: 3, values: [101.5, 98.5, 100.2] });
    expect(a[1]).toMatchObject({
      idea: 'idea: shave one millisecond',
      value: 99.2,
      noise: 3,
      rescue_ref: `refs/ralph/rescue/${runId}/1`,
    });
    expect(a[1]?.why).toContain('within the noise');
    expect(a[2]).toMatchObject({ idea: 'idea: cache the parser', value: 90.2, kept: true, rescue_ref: null });

    // The best commit is the branch head; the rejected attempts are only in their rescue refs.
    expect(readFileSync(join(dir, 'value.txt'), 'utf8')).toBe('79\n');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(a[4]?.commit);
    const subjects = git(dir, 'log', '--format=%s').trim().split('\n');
    expect(subjects).toHaveLength(4);
    expect(git(dir, 'show', `refs/ralph/rescue/${runId}/3:value.txt`)).toBe('89.5\n');
    const [first] = readRecords(dir);
    expect(first).toMatchObject({ verdict: 'failure' });
    expect(first?.reason).toContain('metric: within the noise');

    // The next prompts carry the best so far and the failed idea, so it is not retried.
    const p2 = readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8');
    expect(p2).toContain('## Metric');
    expect(p2).toContain('best so far 100.2 (the baseline)');
    expect(p2).toContain('- iteration 1: idea: shave one millisecond → 99.2');
    const p4 = readFileSync(join(dir, '.ralph', 'p4.md'), 'utf8');
    expect(p4).toContain('best so far 90.2 (iteration 2');
    expect(p4).toContain('- iteration 3: idea: inline the hot loop');
  });

  it('a measurement that cannot be parsed is a failed attempt; metric.patience attempts not kept stop the run (exit 2)', async () => {
    const dir = project(
      '\n  direction: min\n  json_path: results.mean\n  repeats: 1\n  min_improvement: 5\n  patience: 2\n',
      [turn(1, 'oops', 'idea: break it'), turn(2, '98', 'idea: a small step')],
    );
    // The JSON form of the benchmark.
    const yml = readFileSync(join(dir, 'ralph.yml'), 'utf8').replace(
      'node bench.cjs',
      'node bench.cjs --json',
    );
    commitConfig(dir, yml);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(readState(dir).stop_reason).toBe('metric_patience');
    const a = attempts(dir);
    expect(a.map((x) => x.verdict)).toEqual(['baseline', 'measure_failed', 'not_kept']);
    expect(a[1]?.why).toContain('the metric is not a number: "oops"');
    expect(a[2]?.why).toContain('too small');
    expect(readFileSync(join(dir, 'value.txt'), 'utf8')).toBe('100\n');
  });

  it('a kill right after an attempt is appended (before the state save) leaves one line per iteration after --resume', async () => {
    const turns = [turn(1, '90', 'idea: cache the parser')];
    const metric = '\n  direction: min\n  pattern: "time: ([0-9.]+) ms"\n  repeats: 1\n';
    // Where iteration 1's attempt is appended, among the run's durable writes.
    const traced = project(metric, turns, 1);
    const trace = removeWhenDone(`${traced}.writes.jsonl`);
    const first = await runRalph(['run'], traced, { RALPH_FAULT_TRACE_WRITES: trace });
    expect(first.code, first.stdout + first.stderr).toBe(2);
    const writes = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const appends = writes.filter((w) => w.path.endsWith('attempts.jsonl'));
    expect(appends).toHaveLength(2);

    const dir = project(metric, turns, 1);
    const killed = await runRalph(['run'], dir, { RALPH_FAULT_KILL_AFTER_WRITE: String(appends[1].n) });
    expect(killed.signal).toBe('SIGKILL');
    expect(attempts(dir).map((a) => a.iteration)).toEqual([0, 1]);
    const r = await runRalph(['run', '--resume'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const a = attempts(dir);
    // One line per iteration: iteration 1's re-run replaced the line its killed first try left.
    expect(a.map((x) => x.iteration)).toEqual([0, 1]);
    expect(a[1]?.why).toContain('no commit to measure');
    expect(new Set(a.map((x) => x.run_id)).size).toBe(1);
  });

  it('refuses to start when the baseline cannot be measured', async () => {
    const dir = project('\n  direction: max\n  pattern: "score: ([0-9.]+)"\n', [turn(1, '1', 'x')]);
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('metric: the baseline could not be measured');
    expect(r.stderr).toContain('no match for metric.pattern');
    expect(existsSync(join(dir, '.ralph', 'p1.md'))).toBe(false);
  });
});
