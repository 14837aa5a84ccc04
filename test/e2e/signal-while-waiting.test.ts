import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, makeGitWorkspace, subjects } from '../helpers/git-workspace.ts';
import {
  fakeConfig,
  interactWorkspace,
  makeWorkspace,
  type RalphProcess,
  readState,
  readStatus,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

/**
 * The signal × phase matrix for the waits of a loop: a signal while Ralph waits for a human (a
 * review point of `gates.approval`, a `human.interact` question), a rate-limit park, the idle wait
 * and the cooldown ends the run `interrupted` (exit 130), never `completed`, and a held question
 * is waited for again, under the same id, by `--resume`.
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Waits until the loop waits for a human, sends `signal`; the id it waited for and how it ended. */
async function signalWhileWaiting(loop: RalphProcess, dir: string, signal: NodeJS.Signals) {
  await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'waiting for a human');
  const id: string = readState(dir).waiting_for.id;
  loop.child.kill(signal);
  return { id, r: await loop.done };
}

/** Starts a run, waits for `reached`, sends `signal`: the run ends interrupted (exit 130). */
async function interruptedAfter(dir: string, reached: () => Promise<void>, signal: NodeJS.Signals) {
  const loop = startRalph(['run'], dir);
  await reached();
  loop.child.kill(signal);
  const r = await loop.done;
  expect(r.code, r.stdout + r.stderr).toBe(130);
}

/** The ids of the questions and approvals nobody answered (or withdrew) yet. */
function openIds(dir: string): string[] {
  const byId = new Map<string, Record<string, unknown>>();
  const file = join(dir, '.ralph', 'control', 'questions.jsonl');
  for (const line of readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')) {
    const q = JSON.parse(line);
    if (!byId.get(q.id)?.answered) byId.set(q.id, { ...byId.get(q.id), ...q });
  }
  return [...byId.values()].filter((q) => !q.answered).map((q) => String(q.id));
}

/** state.json now, or undefined while there is none yet (or it is mid-write). */
function stateNow(dir: string): Record<string, any> | undefined {
  try {
    return readState(dir);
  } catch {
    return undefined;
  }
}

/** Iterations the agent ran, as it wrote them where git does not look. */
const calls = (dir: string) =>
  readFileSync(join(dir, '.git', 'calls.log'), 'utf8')
    .trim()
    .split('\n');

function commitReviewWorkspace(): string {
  return makeGitWorkspace({
    'PROMPT.md': 'work\n',
    'ralph.yml': `${fakeConfig({ max_iterations: 3 })}git:\n  commit: true\ngates:\n  approval: [before_commit]\n`,
    'fake-agent.yml': [
      'turns:',
      '  - when: { iteration: 1 }',
      '    do:',
      '      - run: "echo $RALPH_ITERATION >> .git/calls.log"',
      '      - write: { path: a.txt, content: "spaces\\n" }',
      '      - print: LOOP_COMPLETE',
      '  - do:',
      '      - save_prompt: .git/p{{iteration}}.md',
      '      - run: "echo $RALPH_ITERATION >> .git/calls.log"',
      '      - write: { path: a.txt, content: "tabs\\n" }',
      '      - print: LOOP_COMPLETE',
    ].join('\n'),
  });
}

describe('a signal at a review point (gates.approval: before_commit) of a completing iteration', () => {
  for (const signal of SIGNALS) {
    it(`${signal}: interrupted (exit 130), nothing committed; --resume returns to the same approval`, async () => {
      const dir = commitReviewWorkspace();
      const { id, r } = await signalWhileWaiting(startRalph(['run'], dir), dir, signal);
      expect(r.code, r.stdout + r.stderr).toBe(130);
      expect(readState(dir)).toMatchObject({
        status: 'interrupted',
        stop_reason: 'interrupted',
        iterations: 1,
      });
      expect(subjects(dir)).toEqual(['initial']);
      expect(git(dir, 'status', '--porcelain')).toContain('a.txt');
      expect(openIds(dir)).toEqual([id]);
      expect(r.stdout + r.stderr).toContain(`while approval ${id} (before_commit) waited; it stays open`);

      if (signal === 'SIGHUP') {
        // Approved while no loop runs: the resumed run commits and completes without asking again.
        const approved = await runRalph(['approve', id], dir);
        expect(approved.code).toBe(0);
        expect(approved.stdout).toContain('no loop is running: `ralph run --resume` goes on from it');
        const resumed = await runRalph(['run', '--resume'], dir);
        expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      } else {
        const resumed = startRalph(['run', '--resume'], dir);
        await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'the held approval');
        expect(readState(dir).waiting_for.id).toBe(id);
        if (signal === 'SIGINT') {
          expect((await runRalph(['approve'], dir)).code).toBe(0);
        } else {
          // Rejected: sent back to the agent with the reason, as a rejection always is.
          expect((await runRalph(['reject', 'use', 'tabs'], dir)).code).toBe(0);
          await waitFor(() => existsSync(join(dir, '.git', 'p2.md')), 15_000, 'iteration 2');
          await waitFor(
            () => readStatus(dir) === 'waiting_for_human' && readState(dir).waiting_for.id !== id,
            15_000,
            'the approval of iteration 2',
          );
          expect((await runRalph(['approve'], dir)).code).toBe(0);
        }
        const r2 = await resumed.done;
        expect(r2.code, r2.stdout + r2.stderr).toBe(0);
      }
      expect(readState(dir)).toMatchObject({ status: 'completed', stop_reason: 'completed' });
      expect(subjects(dir)).toHaveLength(2);
      expect(git(dir, 'status', '--porcelain')).toBe('');
      if (signal === 'SIGTERM') {
        expect(readFileSync(join(dir, '.git', 'p2.md'), 'utf8')).toContain(
          'A human rejected the commit of iteration 1: use tabs',
        );
        expect(git(dir, 'show', 'HEAD:a.txt')).toBe('tabs\n');
        expect(calls(dir)).toEqual(['1', '2']);
      } else {
        expect(git(dir, 'show', 'HEAD:a.txt')).toBe('spaces\n');
        // Approved: the agent did not run again.
        expect(calls(dir)).toEqual(['1']);
      }
      expect(openIds(dir)).toEqual([]);
    }, 60_000);
  }
});

describe('a review point held at the last iteration', () => {
  it('--resume settles it before the iteration limit stops the run: approved, the commit lands, then max_iterations', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}git:\n  commit: true\ngates:\n  approval: [before_commit]\n`,
      'fake-agent.yml': ['turns:', '  - do:', '      - write: { path: a.txt, content: "spaces\\n" }'].join(
        '\n',
      ),
    });
    const { id, r } = await signalWhileWaiting(startRalph(['run'], dir), dir, 'SIGINT');
    expect(r.code, r.stdout + r.stderr).toBe(130);
    expect((await runRalph(['approve', id], dir)).code).toBe(0);
    const resumed = await runRalph(['run', '--resume'], dir);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(2);
    expect(readState(dir)).toMatchObject({ stop_reason: 'max_iterations', iterations: 1 });
    // The iteration done within the limit is committed, not left pending behind the limit.
    expect(subjects(dir)).toHaveLength(2);
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('spaces\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(openIds(dir)).toEqual([]);
  }, 60_000);
});

describe('a review point nobody let pass is no completion', () => {
  it('before_commit rejected in a completing iteration: nothing committed, the reason goes back to the agent', async () => {
    const dir = commitReviewWorkspace();
    const loop = startRalph(['run'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'approval 1');
    expect((await runRalph(['reject', 'use', 'tabs'], dir)).code).toBe(0);
    await waitFor(() => existsSync(join(dir, '.git', 'p2.md')), 15_000, 'iteration 2');
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'approval 2');
    expect((await runRalph(['approve'], dir)).code).toBe(0);
    const r = await loop.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir)).toMatchObject({ stop_reason: 'completed', iterations: 2 });
    expect(readFileSync(join(dir, '.git', 'p2.md'), 'utf8')).toContain(
      'A human rejected the commit of iteration 1: use tabs',
    );
    expect(subjects(dir)).toHaveLength(2);
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('tabs\n');
  }, 60_000);
});

describe('every review point in turn (before_commit, before_push, before_complete)', () => {
  it('SIGINT at before_push: committed, not pushed; --resume asks the same push, then completion', async () => {
    const remote = makeWorkspace({});
    git(remote, 'init', '-q', '--bare', '-b', 'main');
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 3 })}git:\n  commit: true\n  push: true\ngates:\n  approval: [before_commit, before_push, before_complete]\n`,
      'fake-agent.yml':
        'turns:\n  - do:\n      - write: { path: a.txt, content: "done\\n" }\n      - print: LOOP_COMPLETE\n',
    });
    git(dir, 'remote', 'add', 'origin', remote);
    /** The next review point, once the loop waits for it. */
    const next = async (after: string[]) => {
      await waitFor(
        () => readStatus(dir) === 'waiting_for_human' && !after.includes(readState(dir).waiting_for.id),
        15_000,
        `review point ${after.length + 1}`,
      );
      return readState(dir).waiting_for as { id: string; text: string };
    };
    const loop = startRalph(['run'], dir);
    const commit = await next([]);
    expect(commit.text).toContain('Commit the changes of iteration 1');
    expect((await runRalph(['approve'], dir)).code).toBe(0);
    const push = await next([commit.id]);
    expect(push.text).toContain('Push the commits of iteration 1');
    loop.child.kill('SIGINT');
    const r = await loop.done;
    expect(r.code, r.stdout + r.stderr).toBe(130);
    expect(subjects(dir)).toHaveLength(2);
    expect(git(remote, 'branch', '--list')).toBe('');

    const resumed = startRalph(['run', '--resume'], dir);
    expect((await next([commit.id])).id).toBe(push.id);
    expect((await runRalph(['approve'], dir)).code).toBe(0);
    const complete = await next([commit.id, push.id]);
    expect(complete.text).toContain('Accept completion?');
    expect(git(remote, 'rev-parse', 'main')).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect((await runRalph(['approve'], dir)).code).toBe(0);
    const r2 = await resumed.done;
    expect(r2.code, r2.stdout + r2.stderr).toBe(0);
    expect(readState(dir)).toMatchObject({ status: 'completed', iterations: 1 });
    expect(openIds(dir)).toEqual([]);
  }, 60_000);
});

describe('a signal while Ralph waits for a human, other than before_commit', () => {
  it('before_complete, SIGTERM: interrupted, not completed; --resume asks the same approval, approve completes without another agent run', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 3 })}gates:\n  approval: before_complete\n`,
      'fake-agent.yml':
        'turns:\n  - do:\n      - run: "echo $RALPH_ITERATION >> .git/calls.log"\n      - print: LOOP_COMPLETE\n',
    });
    const { id, r } = await signalWhileWaiting(startRalph(['run'], dir), dir, 'SIGTERM');
    expect(r.code, r.stdout + r.stderr).toBe(130);
    expect(readState(dir)).toMatchObject({
      status: 'interrupted',
      stop_reason: 'interrupted',
      iterations: 1,
    });
    expect(openIds(dir)).toEqual([id]);
    const resumed = startRalph(['run', '--resume'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'the held approval');
    expect(readState(dir).waiting_for.id).toBe(id);
    expect((await runRalph(['approve'], dir)).code).toBe(0);
    const r2 = await resumed.done;
    expect(r2.code, r2.stdout + r2.stderr).toBe(0);
    expect(readState(dir)).toMatchObject({ status: 'completed', stop_reason: 'completed', iterations: 1 });
    expect(calls(dir)).toEqual(['1']);
  }, 60_000);

  it('a human.interact question, SIGHUP: interrupted; --resume waits for the same question, and the answer reaches the next prompt', async () => {
    const dir = interactWorkspace();
    const { id, r } = await signalWhileWaiting(startRalph(['run'], dir), dir, 'SIGHUP');
    expect(r.code, r.stdout + r.stderr).toBe(130);
    expect(readState(dir)).toMatchObject({ status: 'interrupted', iterations: 1 });
    expect(openIds(dir)).toEqual([id]);
    const resumed = startRalph(['run', '--resume'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'the held question');
    expect(readState(dir).waiting_for.id).toBe(id);
    expect((await runRalph(['answer', id, 'no, Monday'], dir)).code).toBe(0);
    const r2 = await resumed.done;
    expect(r2.code, r2.stdout + r2.stderr).toBe(2);
    expect(readFileSync(join(dir, 'p2.md'), 'utf8')).toContain('no, Monday');
    expect(openIds(dir)).toEqual([]);
  }, 60_000);
});

describe('a signal while the agent waits for a human (ralph ask)', () => {
  it('SIGTERM: interrupted; the question stays open, and the re-run iteration waits for the same id', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml':
        'turns:\n  - do:\n      - run: "ralph ask \'Which database?\' --options postgres,sqlite > answer.txt"\n',
    });
    const { id, r } = await signalWhileWaiting(startRalph(['run'], dir), dir, 'SIGTERM');
    expect(r.code, r.stdout + r.stderr).toBe(130);
    expect(readState(dir)).toMatchObject({ status: 'interrupted', iterations: 0 });
    expect(openIds(dir)).toEqual([id]);
    const resumed = startRalph(['run', '--resume'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'the question again');
    expect(readState(dir).waiting_for.id).toBe(id);
    expect((await runRalph(['answer', 'sqlite'], dir)).code).toBe(0);
    const r2 = await resumed.done;
    expect(r2.code, r2.stdout + r2.stderr).toBe(2);
    expect(readFileSync(join(dir, 'answer.txt'), 'utf8')).toBe('sqlite\n');
    expect(openIds(dir)).toEqual([]);
  }, 60_000);

  it('--fresh withdraws what the interrupted run kept open', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}gates:\n  approval: before_complete\n`,
      'fake-agent.yml': 'turns:\n  - do: [{ print: LOOP_COMPLETE }]\n',
    });
    const { id, r } = await signalWhileWaiting(startRalph(['run'], dir), dir, 'SIGINT');
    expect(r.code).toBe(130);
    expect(openIds(dir)).toEqual([id]);
    const fresh = startRalph(['run', '--fresh'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'the new run asks');
    expect(openIds(dir)).toEqual([readState(dir).waiting_for.id]);
    expect(readState(dir).waiting_for.id).not.toBe(id);
    expect((await runRalph(['approve'], dir)).code).toBe(0);
    expect((await fresh.done).code).toBe(0);
  }, 60_000);
});

describe('a signal in the other waits of the loop', () => {
  it('parked on a rate limit, SIGINT: interrupted (exit 130), still parked for --resume', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 3 }),
      'fake-agent.yml': 'turns:\n  - do:\n      - rate_limit: { resets_in_seconds: 600 }\n      - exit: 1\n',
    });
    await interruptedAfter(
      dir,
      () => waitFor(() => stateNow(dir)?.parked != null, 15_000, 'parked'),
      'SIGINT',
    );
    expect(readState(dir)).toMatchObject({
      status: 'interrupted',
      stop_reason: 'interrupted',
      iterations: 0,
    });
    expect(readState(dir).parked?.until).toBeGreaterThan(Date.now());
  }, 60_000);

  it('paused (ralph pause), SIGINT: interrupted (exit 130)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 3 }),
      'fake-agent.yml': 'turns:\n  - do: [{ write: { path: started, content: "" } }, { sleep: 0.5 }]\n',
    });
    const paused = async () => {
      await waitFor(() => existsSync(join(dir, 'started')), 15_000, 'iteration 1');
      expect((await runRalph(['pause'], dir)).code).toBe(0);
      await waitFor(() => readStatus(dir) === 'paused', 15_000, 'paused');
    };
    await interruptedAfter(dir, paused, 'SIGINT');
    expect(readState(dir)).toMatchObject({ status: 'interrupted', stop_reason: 'interrupted' });
  }, 60_000);

  it('the cooldown between iterations, SIGTERM: interrupted (exit 130), not completed', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 3, cooldown_delay_seconds: 600 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: "step done" }]\n',
    });
    const iterated = () => waitFor(() => stateNow(dir)?.iterations === 1, 15_000, 'iteration 1');
    await interruptedAfter(dir, iterated, 'SIGTERM');
    expect(readState(dir)).toMatchObject({
      status: 'interrupted',
      stop_reason: 'interrupted',
      iterations: 1,
    });
  }, 60_000);

  it('persistent idle, SIGHUP: interrupted (exit 130), never completed', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 5, persistent: true, cooldown_delay_seconds: 600 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: LOOP_COMPLETE }]\n',
    });
    // Saved right before the idle wait begins.
    const idle = () => waitFor(() => stateNow(dir)?.idle_next_scan_at != null, 15_000, 'idle');
    await interruptedAfter(dir, idle, 'SIGHUP');
    expect(readState(dir)).toMatchObject({
      status: 'interrupted',
      stop_reason: 'interrupted',
      iterations: 1,
    });
  }, 60_000);
});
