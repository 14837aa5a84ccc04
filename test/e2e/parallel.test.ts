import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, subjects } from '../helpers/git-workspace.ts';
import {
  addTasks,
  lostWorkerCommits,
  makeParallelWorkspace,
  parallelState,
} from '../helpers/parallel-workspace.ts';
import { runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

/** A fake-agent turn: when the prompt names TITLE, write FILE and finish. */
const writes = (title: string, file: string, content = `${title}\n`, sleep = 0.3) =>
  `  - when: { prompt: "\\\\*\\\\*${title}\\\\*\\\\*" }\n    do:\n      - sleep: ${sleep}\n      - write: { path: ${file}, content: ${JSON.stringify(content)} }\n      - print: LOOP_COMPLETE\n`;

const RESOLVE =
  '  - when: { prompt: "Resolve a merge conflict" }\n    do:\n' +
  "      - run: \"git merge main -m 'merge main' >/dev/null 2>&1; printf 'base\\\\nA\\\\nB\\\\n' > shared.txt; git add -A && git commit -qm 'ralph: resolve conflict'\"\n" +
  '        allow_failure: true\n      - print: LOOP_COMPLETE\n';

// Each test runs several Ralph and agent processes: a loaded 2-core machine needs time, never luck.
describe('ralph run --parallel', { timeout: 120_000 }, () => {
  it('merges disjoint tasks of 3 workers onto the target; every task closed, no worker commit lost', async () => {
    const script = `turns:\n${['Alpha', 'Beta', 'Gamma', 'Delta'].map((t) => writes(t, `${t.toLowerCase()}.txt`)).join('')}`;
    const dir = makeParallelWorkspace(script);
    const ids = await addTasks(dir, ['Alpha', 'Beta', 'Gamma', 'Delta']);
    const r = await runRalph(['run', '--parallel', '3', '--no-tui'], dir);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('parallel run completed — 4/4 task(s) merged');
    expect(r.stderr).toMatch(/w1 took task-/);
    expect(r.stderr).toMatch(/w3 took task-/);
    for (const t of ['alpha', 'beta', 'gamma', 'delta'])
      expect(readFileSync(join(dir, `${t}.txt`), 'utf8')).toBe(`${t[0]?.toUpperCase()}${t.slice(1)}\n`);
    const state = parallelState(dir);
    for (const id of ids) expect(state.tasks[id].state).toBe('merged');
    const list = await runRalph(['tools', 'task', 'list'], dir);
    expect(list.stdout.match(/closed/g)).toHaveLength(4);
    // Merged worktrees and branches are gone; the history is linear (rebased, fast-forwarded).
    expect(git(dir, 'branch', '--list', 'ralph/*').trim()).toBe('');
    expect(git(dir, 'rev-list', '--merges', 'main').trim()).toBe('');
    expect(git(dir, 'status', '--porcelain').trim()).toBe('');
    expect(lostWorkerCommits(dir)).toEqual([]);
  });

  it('worker logs beyond logs.keep_logs are pruned when a worker starts, least recently written first', async () => {
    const dir = makeParallelWorkspace(`turns:\n${writes('Alpha', 'alpha.txt')}`, 'logs:\n  keep_logs: 2\n');
    const [id] = await addTasks(dir, ['Alpha']);
    const logs = join(dir, '.ralph', 'parallel', 'logs');
    mkdirSync(logs, { recursive: true });
    // Older by mtime, whatever their names say; notes.txt is not a log.
    for (const [name, age] of [
      ['task-zzz.log', 300],
      ['task-aaa.log', 100],
      ['task-mmm.log', 200],
    ] as const) {
      writeFileSync(join(logs, name), 'old\n');
      const at = Date.now() / 1000 - age;
      utimesSync(join(logs, name), at, at);
    }
    writeFileSync(join(logs, 'notes.txt'), 'kept\n');
    const r = await runRalph(['run', '--parallel', '1', '--no-tui'], dir);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(readdirSync(logs).sort()).toEqual(['notes.txt', 'task-aaa.log', `${id}.log`].sort());
  });

  it('two tasks editing the same lines: the second merge conflicts, one agent iteration resolves it', async () => {
    const script = `turns:\n${RESOLVE}${writes('Left', 'shared.txt', 'base\nA\n')}${writes('Right', 'shared.txt', 'base\nB\n', 1)}`;
    const dir = makeParallelWorkspace(script, '', { 'shared.txt': 'base\n' });
    await addTasks(dir, ['Left', 'Right']);
    const r = await runRalph(['run', '--parallel', '2', '--no-tui'], dir);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toMatch(/conflict in shared\.txt \(attempt 1\)/);
    expect(r.stderr).toMatch(/merge resolves a merge conflict of task-/);
    expect(readFileSync(join(dir, 'shared.txt'), 'utf8')).toBe('base\nA\nB\n');
    expect(subjects(dir)).toContain('ralph: resolve conflict');
    expect(lostWorkerCommits(dir)).toEqual([]);
  });

  it('a conflict its resolving iteration cannot fix: after merge.max_attempts the worktree is kept, needs_review', async () => {
    const giveUp =
      '  - when: { prompt: "Resolve a merge conflict" }\n    do:\n      - print: "cannot"\n      - print: LOOP_COMPLETE\n';
    const script = `turns:\n${giveUp}${writes('Left', 'shared.txt', 'base\nA\n')}${writes('Right', 'shared.txt', 'base\nB\n', 1)}`;
    const dir = makeParallelWorkspace(script, 'merge:\n  max_attempts: 1\n', { 'shared.txt': 'base\n' });
    await addTasks(dir, ['Left', 'Right']);
    const r = await runRalph(['run', '--parallel', '2', '--no-tui'], dir);
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.stdout).toContain('1/2 task(s) merged');
    expect(r.stdout).toMatch(/needs_review: merging into main conflicts in shared\.txt after 1 attempt/);
    const state = parallelState(dir);
    const review = Object.values(state.tasks).find((t: any) => t.state === 'needs_review') as any;
    // Its branch and worktree are kept with the work on them; clean refuses to remove them.
    expect(git(dir, 'branch', '--list', `ralph/${review.worktree}`).trim()).not.toBe('');
    const clean = await runRalph(['worktrees', 'clean'], dir);
    expect(clean.stdout).toContain(`kept ${review.worktree}: 1 commit(s)`);
    const list = await runRalph(['worktrees', 'list'], dir);
    expect(list.stdout).toContain('needs_review');
    expect(lostWorkerCommits(dir)).toEqual([]);

    // A person resolves it in the worktree; the next run merges it.
    const wt = join(dir, '.ralph', 'worktrees', review.worktree);
    spawnSync('git', ['-C', wt, 'merge', 'main', '-m', 'merge main'], { stdio: 'ignore' });
    writeFileSync(join(wt, 'shared.txt'), 'base\nA\nB\n');
    git(wt, 'commit', '-qam', 'resolved by hand');
    const again = await runRalph(['run', '--parallel', '2', '--no-tui'], dir);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(readFileSync(join(dir, 'shared.txt'), 'utf8')).toBe('base\nA\nB\n');
    expect(parallelState(dir).tasks[review.id].state).toBe('merged');
  });

  it('gates failing on the rebased tree send the task back to a worker with the failure', async () => {
    // Each task passes alone; together they fail until fixed.txt exists.
    const gate =
      'gates:\n  tests:\n    command: "if [ -f a.txt ] && [ -f b.txt ] && [ ! -f fixed.txt ]; then echo both without a fix; exit 1; fi"\n';
    const fix =
      '  - when: { prompt: "Fix this first" }\n    do:\n      - write: { path: fixed.txt, content: "fixed\\n" }\n      - print: LOOP_COMPLETE\n';
    const script = `turns:\n${fix}${writes('TaskA', 'a.txt')}${writes('TaskB', 'b.txt', 'TaskB\n', 1)}`;
    const dir = makeParallelWorkspace(script, gate);
    await addTasks(dir, ['TaskA', 'TaskB']);
    const r = await runRalph(['run', '--parallel', '2', '--no-tui'], dir);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toMatch(/gates failed — tests failed on the rebased tree/);
    expect(existsSync(join(dir, 'fixed.txt'))).toBe(true);
    const reworked = Object.values(parallelState(dir).tasks).find((t: any) => t.merge_attempts === 1) as any;
    expect(reworked.state).toBe('merged');
    expect(reworked.last_gate).toEqual({ passed: true, summary: 'tests passed' });
    expect(lostWorkerCommits(dir)).toEqual([]);
  });

  it('a worker killed mid-task: its claim is released and the task retried once', async () => {
    const script =
      'turns:\n' +
      '  - when: { prompt: "\\\\*\\\\*Slow\\\\*\\\\*", file_missing: .first-try }\n    do:\n      - write: { path: .first-try, content: "x" }\n      - sleep: 60\n' +
      '  - when: { prompt: "\\\\*\\\\*Slow\\\\*\\\\*" }\n    do:\n      - delete: .first-try\n      - write: { path: slow.txt, content: "slow\\n" }\n      - print: LOOP_COMPLETE\n' +
      writes('Quick', 'quick.txt');
    const dir = makeParallelWorkspace(script);
    const [slow] = await addTasks(dir, ['Slow', 'Quick']);
    const run = startRalph(['run', '--parallel', '2', '--no-tui'], dir);
    const claim = join(dir, '.ralph', 'parallel', 'claims', `${slow}.json`);
    const firstTry = join(dir, '.ralph', 'worktrees', slow as string, '.first-try');
    await waitFor(() => existsSync(firstTry) && existsSync(claim), 20_000, 'the slow task under way');
    const { pid } = JSON.parse(readFileSync(claim, 'utf8'));
    process.kill(pid, 'SIGKILL');
    const r = await run.done;
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toContain(`finished ${slow}: killed (its loop was still running)`);
    const task = parallelState(dir).tasks[slow as string];
    expect(task).toMatchObject({ state: 'merged', attempts: 1 });
    expect(readFileSync(join(dir, 'slow.txt'), 'utf8')).toBe('slow\n');
    expect(existsSync(claim)).toBe(false);
  });

  it('Ralph killed mid-merge: --resume adopts the live worker and finishes the merge exactly once', async () => {
    const log = 'merge-gates.log';
    const gate = `gates:\n  tests:\n    command: "if [ -n \\"$RALPH_MERGE_TASK\\" ]; then echo $RALPH_MERGE_TASK >> ../../${log}; sleep 2; fi"\n`;
    // Second works until the test releases it, so it is still at work when the resume adopts it.
    const second_ =
      '  - when: { prompt: "\\\\*\\\\*Second\\\\*\\\\*" }\n    do:\n      - run: "while [ ! -f ../../../release ]; do sleep 0.1; done"\n' +
      '      - write: { path: second.txt, content: "Second\\n" }\n      - print: LOOP_COMPLETE\n';
    const script = `turns:\n${writes('First', 'first.txt')}${second_}`;
    const dir = makeParallelWorkspace(script, gate);
    const [first, second] = await addTasks(dir, ['First', 'Second']);
    const run = startRalph(['run', '--parallel', '2', '--no-tui'], dir);
    await waitFor(() => existsSync(join(dir, '.ralph', log)), 20_000, 'the first merge in its gates');
    run.child.kill('SIGKILL');
    await run.done;
    expect(parallelState(dir).tasks[first as string].state).toBe('merging');

    const resumed = startRalph(['run', '--parallel', '2', '--resume', '--no-tui'], dir);
    await waitFor(
      () => new RegExp(`w\\d still works on ${second}`).test(resumed.stderr()),
      60_000,
      'the resume to adopt the live worker',
    );
    writeFileSync(join(dir, 'release'), '');
    const r = await resumed.done;
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toContain('(resumed)');
    const state = parallelState(dir);
    expect(state.tasks[first as string].state).toBe('merged');
    expect(state.tasks[second as string].state).toBe('merged');
    // Each task's commit is on main once; the first merge's gates ran again, nothing twice on main.
    const onMain = git(dir, 'log', '--format=%s', '--', 'first.txt').trim().split('\n');
    expect(onMain).toHaveLength(1);
    expect(
      readFileSync(join(dir, '.ralph', log), 'utf8')
        .trim()
        .split('\n'),
    ).toEqual([first, first, second]);
    expect(lostWorkerCommits(dir)).toEqual([]);
  });

  it('checklist tasks: the tasks of a milestone in parallel, the next milestone after; boxes checked on the target', async () => {
    const design =
      '# Design\n\n## Milestone 1: Base\n\n- [ ] One\n- [ ] Two\n\n## Milestone 2: More\n\n- [ ] Three\n';
    const script = `turns:\n${['One', 'Two', 'Three'].map((t) => writes(t, `${t.toLowerCase()}.txt`)).join('')}`;
    const dir = makeParallelWorkspace(script, 'completion:\n  checklist: DESIGN.md\n', {
      'DESIGN.md': design,
    });
    const r = await runRalph(['run', '--parallel', '3', '--no-tui'], dir);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toContain('checklist tasks');
    expect(readFileSync(join(dir, 'DESIGN.md'), 'utf8')).toBe(design.replaceAll('[ ]', '[x]'));
    // Three waited for milestone 1: it started after both of its tasks were merged.
    const lines = r.stderr.split('\n');
    const startedThree = lines.findIndex((l) => l.includes('"Three"') && l.includes(' took '));
    const merged = lines.map((l, i) => (l.startsWith('merged ') ? i : -1)).filter((i) => i >= 0);
    expect(
      merged.slice(0, 2).every((i) => i < startedThree),
      r.stderr,
    ).toBe(true);
    expect(subjects(dir).filter((s) => s.startsWith('ralph: done — '))).toEqual([
      'ralph: done — Three',
      expect.stringMatching(/^ralph: done — (One|Two)$/),
      expect.stringMatching(/^ralph: done — (One|Two)$/),
    ]);
    expect(git(dir, 'status', '--porcelain').trim()).toBe('');
  });

  it('IMPLEMENTATION_PLAN.md tasks: each merged item leaves the plan for PROGRESS.md', async () => {
    const plan =
      '# Implementation Plan\n\n## Remaining Tasks\n\n1. Build alpha (specs/a.md)\n2. Build beta (specs/b.md)\n\n## Notes\n\n- keep it small\n';
    const script = `turns:\n${writes('Build alpha \\\\(specs/a.md\\\\)', 'alpha.txt')}${writes('Build beta \\\\(specs/b.md\\\\)', 'beta.txt')}`;
    const dir = makeParallelWorkspace(script, '', {
      'IMPLEMENTATION_PLAN.md': plan,
      'PROGRESS.md': '# Progress\n',
    });
    const r = await runRalph(['run', '--parallel', '2', '--no-tui'], dir);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toContain('plan tasks');
    expect(readFileSync(join(dir, 'IMPLEMENTATION_PLAN.md'), 'utf8')).toBe(
      '# Implementation Plan\n\n## Remaining Tasks\n\n## Notes\n\n- keep it small\n',
    );
    const progress = readFileSync(join(dir, 'PROGRESS.md'), 'utf8');
    expect(progress).toMatch(/- Build alpha \(specs\/a\.md\) \(merged in [0-9a-f]{8} by a parallel worker\)/);
    expect(progress).toMatch(/- Build beta \(specs\/b\.md\) \(merged in [0-9a-f]{8}/);
    expect(existsSync(join(dir, 'alpha.txt')) && existsSync(join(dir, 'beta.txt'))).toBe(true);
  });

  it('shares max_cost_usd across the workers: no task starts once together they reach it (exit 2)', async () => {
    // Every iteration costs $0.30; a task needs 3 iterations; 2 workers and $1.00 for everything.
    const step = (n: number) =>
      `  - when: { iteration: ${n} }\n    do:\n      - sleep: 0.5\n      - result: { text: "${n === 3 ? 'LOOP_COMPLETE' : 'more to do'}", cost_usd: 0.3 }\n`;
    const dir = makeParallelWorkspace(
      `turns:\n${step(1)}${step(2)}${step(3)}`,
      '',
      {},
      { max_cost_usd: 1, max_iterations: 5 },
    );
    const [a, b, c] = await addTasks(dir, ['A', 'B', 'C']);
    const r = await runRalph(['run', '--parallel', '2', '--no-tui'], dir);
    expect(r.code, r.stderr + r.stdout).toBe(2);
    expect(r.stdout).toContain('parallel run max_cost');
    expect(r.stdout).toContain('the workers together spent $1 (max_cost_usd)');
    expect(r.stderr).not.toContain(`took ${c}`);
    const state = parallelState(dir);
    const spent = Object.values(state.tasks)
      .flatMap((t: any) => Object.values(t.runs))
      .reduce((n: number, x: any) => n + x.cost_usd, 0);
    expect(spent).toBeGreaterThanOrEqual(1);
    // Each worker was given what was left of the shared budget, not the whole of it again.
    const spec = JSON.parse(readFileSync(join(dir, '.ralph', 'parallel', 'workers', 'w1.json'), 'utf8'));
    expect(spec.config.event_loop.max_cost_usd).toBeLessThanOrEqual(1);
    expect([a, b].every((id) => state.tasks[id as string])).toBe(true);
  });

  it('Ctrl-C interrupts every worker (exit 130); the next run resumes their tasks and finishes', async () => {
    const script = `turns:\n${writes('Alpha', 'alpha.txt', 'Alpha\n', 30)}${writes('Beta', 'beta.txt', 'Beta\n', 30)}`;
    const dir = makeParallelWorkspace(script);
    const [a, b] = await addTasks(dir, ['Alpha', 'Beta']);
    const run = startRalph(['run', '--parallel', '2', '--no-tui'], dir);
    await waitFor(
      () => /iteration 1 \(running\)[\s\S]*iteration 1 \(running\)/.test(run.stderr()),
      20_000,
      'both workers at work',
    );
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain(`finished ${a}: interrupted (`);
    expect(r.stderr).toContain(`finished ${b}: interrupted (`);
    const status = await runRalph(['status'], dir);
    expect(status.stdout).toMatch(/parallel run par-\S+ — interrupted/);
    expect(status.stdout).toContain(`${a}  ready  "Alpha"`);
    // The interrupted tasks cost no attempt; the next run (agents now quick) resumes and merges them.
    const quick = `turns:\n${writes('Alpha', 'alpha.txt')}${writes('Beta', 'beta.txt')}`;
    writeFileSync(join(dir, 'fake-agent.yml'), quick);
    git(dir, 'commit', '-qam', 'quick agent');
    const again = await runRalph(['run', '--parallel', '2', '--no-tui'], dir);
    expect(again.code, again.stderr).toBe(0);
    expect(Object.values(parallelState(dir).tasks).map((t: any) => [t.state, t.attempts])).toEqual([
      ['merged', 0],
      ['merged', 0],
    ]);
  });

  it('refuses what it cannot do, with one line that says what to do, touching nothing', async () => {
    const dir = makeParallelWorkspace(`turns:\n${writes('Alpha', 'alpha.txt')}`);
    let r = await runRalph(['run', '--parallel', '2', '--no-tui'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no ready task for the workers: add some with `ralph tools task add "TITLE"`');
    await addTasks(dir, ['Alpha']);
    r = await runRalph(['run', '--parallel', '0'], dir);
    expect(r.stderr).toContain('--parallel expects a number of workers from 1 to 64, got "0"');
    r = await runRalph(['run', '--parallel', '2', '--worktree', 'x'], dir);
    expect(r.stderr).toContain('pass either --parallel or --worktree');
    expect(existsSync(join(dir, '.ralph', 'worktrees', 'x'))).toBe(false);
    writeFileSync(join(dir, 'PROMPT.md'), 'changed\n');
    r = await runRalph(['run', '--parallel', '2', '--no-tui'], dir);
    expect(r.stderr).toContain("a parallel run needs the target's tracked files committed");
    expect(r.stderr).toContain('uncommitted: PROMPT.md — commit or stash them first');
    git(dir, 'checkout', '--', 'PROMPT.md');
    r = await runRalph(['run', '--parallel', '2', '--no-tui', '-b', 'amp'], dir, { PATH: '/usr/bin:/bin' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('agent binary not found: amp');
    expect(existsSync(join(dir, '.ralph', 'parallel', 'state.json'))).toBe(false);
    expect(git(dir, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });
});
