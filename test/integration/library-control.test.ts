import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  answer,
  approve,
  type LoopSummary,
  pause,
  RalphError,
  reject,
  resume,
  stop,
  tell,
} from '../../src/index.ts';
import { readLoopState } from '../../src/state/loop-state.ts';
import { runLoopIn } from '../helpers/library-loop.ts';
import { fakeConfig, makeWorkspace, waitFor, waitForFile } from '../helpers/workspace.ts';

const start = (dir: string): Promise<LoopSummary> => runLoopIn(dir);

/** How many approvals the loop asked for (lines of control/questions.jsonl, DESIGN.md §5). */
const approvalsAsked = (dir: string) => {
  const file = join(dir, '.ralph', 'control', 'questions.jsonl');
  if (!existsSync(file)) return 0;
  const ids = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"kind":"approval"'))
    .map((l) => (JSON.parse(l) as { id: string }).id);
  return new Set(ids).size;
};

const status = (dir: string) => readLoopState(join(dir, '.ralph', 'state.json'))?.status;

describe('the control tier (library API)', () => {
  it('tell steers a running loop, pause and resume hold it, stop ends it after the iteration', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 5 }),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - write: { path: started1, content: "" }',
        waitForFile('go1'),
        '  - when: { iteration: 2 }',
        '    do:',
        '      - save_prompt: p2.md',
        waitForFile('go2'),
        '  - do: [{ save_prompt: "p{{iteration}}.md" }]',
      ].join('\n'),
    });
    expect(() => stop(dir)).toThrow(RalphError);
    expect(() => pause(dir)).toThrow(/no Ralph loop is running/);
    const loop = start(dir);
    await waitFor(() => existsSync(join(dir, 'started1')), 15_000, 'iteration 1');

    const told = tell(dir, '  use tabs, not spaces ');
    expect(told).toMatchObject({
      workspace: dir,
      loopPid: process.pid,
      command: { kind: 'guidance', source: 'cli' },
    });
    expect(told.command.text).toBe('use tabs, not spaces');
    const paused = pause({ workspace: dir, source: 'dashboard' });
    expect(paused.command).toMatchObject({ kind: 'pause', source: 'dashboard' });
    writeFileSync(join(dir, 'go1'), '');
    await waitFor(() => status(dir) === 'paused', 15_000, 'paused after iteration 1');
    expect(existsSync(join(dir, 'p2.md'))).toBe(false);
    expect(resume(dir).command.kind).toBe('resume');

    // The fake agent creates p2.md, then writes it: wait for the prompt's last line.
    const p2 = () => (existsSync(join(dir, 'p2.md')) ? readFileSync(join(dir, 'p2.md'), 'utf8') : '');
    await waitFor(() => p2().includes('use tabs'), 15_000, 'iteration 2 with the guidance');
    expect(p2()).toContain('## From a human');
    expect(p2()).toContain('use tabs, not spaces');
    expect(stop(dir).command.kind).toBe('stop');
    writeFileSync(join(dir, 'go2'), '');
    const summary = await loop;
    expect(summary).toMatchObject({
      workspace: dir,
      stopReason: 'cancelled',
      exitCode: 0,
      resumable: false,
      iterations: 2,
      costUsd: 0,
    });
    expect(summary.runId).toMatch(/\S/);
    expect(summary.tokens).toMatchObject({ total: expect.any(Number) });
    expect(summary.durationMs).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'p3.md'))).toBe(false);
    // Not the internal state object: a stable summary.
    expect(Object.keys(summary).sort()).toEqual([
      'costUsd',
      'durationMs',
      'exitCode',
      'iterations',
      'logFile',
      'message',
      'resumable',
      'runId',
      'stopReason',
      'tokens',
      'workspace',
    ]);
    // With no loop running, guidance waits for the next run.
    expect(tell(dir, 'later').loopPid).toBeUndefined();
  });

  it('answer, reject and approve settle what a running loop waits for', async () => {
    const dir = makeWorkspace({
      'ralph.yml': `${fakeConfig({ max_iterations: 3 })}gates:\n  approval: before_complete\n`,
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - run: "ralph ask \'Which database?\' --options postgres,sqlite > answer.txt"',
        '      - print: LOOP_COMPLETE',
        '  - do:',
        '      - save_prompt: "p{{iteration}}.md"',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    expect(() => answer(dir, 'sqlite')).toThrow(/no question is waiting/);
    const loop = start(dir);
    await waitFor(() => status(dir) === 'waiting_for_human', 15_000, 'the question');
    expect(() => answer(dir, 'mysql')).toThrow(/takes one of: "postgres", "sqlite"/);
    const answered = answer(dir, 'SQLite');
    expect(answered.question).toMatchObject({ kind: 'question', answer: 'sqlite', by: 'cli' });
    expect(answered.command).toMatchObject({ kind: 'answer', ref: answered.question.id, text: 'sqlite' });

    await waitFor(() => approvalsAsked(dir) === 1, 15_000, 'approval 1');
    expect(readFileSync(join(dir, 'answer.txt'), 'utf8')).toBe('sqlite\n');
    const rejected = reject(dir, 'the README is missing');
    expect(rejected.question).toMatchObject({ kind: 'approval', point: 'before_complete', answer: 'reject' });
    await waitFor(() => existsSync(join(dir, 'p2.md')), 15_000, 'iteration 2');
    await waitFor(() => approvalsAsked(dir) === 2, 15_000, 'approval 2');
    const approved = approve({ workspace: dir, source: 'tui' }, { id: undefined });
    expect(approved.question).toMatchObject({ answer: 'approve', by: 'tui' });
    const summary = await loop;
    expect(summary).toMatchObject({ stopReason: 'completed', exitCode: 0, iterations: 2 });
    expect(readFileSync(join(dir, 'p2.md'), 'utf8')).toContain('the README is missing');
  });

  it('a worktree is selected by name, and a missing one is a clear error', () => {
    const dir = makeWorkspace({});
    expect(() => tell({ workspace: dir, worktree: 'nope' }, 'x')).toThrow(
      expect.objectContaining({ code: 'no_worktree', message: expect.stringContaining('"nope"') }),
    );
    // A worktree's checkout is a workspace of its own: the command lands in its inbox.
    const path = join(dir, '.ralph', 'worktrees', 'w1');
    mkdirSync(path, { recursive: true });
    const sent = tell({ workspace: dir, worktree: 'w1' }, 'hello');
    expect(sent.workspace).toBe(path);
    expect(readFileSync(join(path, '.ralph', 'control', 'inbox.jsonl'), 'utf8')).toContain('hello');
    expect(existsSync(join(dir, '.ralph', 'control', 'inbox.jsonl'))).toBe(false);
  });
});
