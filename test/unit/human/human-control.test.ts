import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { limitWarnings, WARN_AT_PERCENT } from '../../../src/engine/decide/limit-warnings.ts';
import type { Counters, Limits } from '../../../src/engine/decide/limits.ts';
import { ask, askAgain } from '../../../src/human/ask.ts';
import { answer, reject, tell } from '../../../src/human/control.ts';
import { openQuestions, readInbox, readQuestions } from '../../../src/human/control-files.ts';
import { notificationOf } from '../../../src/human/notify.ts';
import { removeWhenDone } from '../../helpers/workspace.ts';

function workspace(): string {
  const dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-human-')));
  // A Ralph project (tell refuses a directory without ralph.yml or .ralph/).
  mkdirSync(join(dir, '.ralph'));
  return dir;
}

/** Settles once `ask` has written its question (its onAsked hook): no sleeping for it. */
function whenAsked(): { resolve: () => void; written: Promise<void> } {
  let resolve = () => {};
  const written = new Promise<void>((r) => {
    resolve = r;
  });
  return { resolve, written };
}

describe('readInbox', () => {
  it('reads complete lines only, skips junk, and restarts from 0 when the file shrank', () => {
    const ws = workspace();
    tell(ws, 'one');
    const inbox = join(ws, '.ralph', 'control', 'inbox.jsonl');
    appendFileSync(inbox, 'not json\n{"id":"x","kind":"explode"}\n{"id":"torn","kind":"stop"');
    const first = readInbox(inbox, 0);
    expect(first.commands.map((c) => c.text)).toEqual(['one']);
    expect(first.malformed).toBe(2);
    appendFileSync(inbox, ',"source":"cli"}\n');
    const second = readInbox(inbox, first.nextOffset);
    expect(second.commands.map((c) => c.id)).toEqual(['torn']);
    writeFileSync(inbox, '');
    tell(ws, 'two');
    expect(readInbox(inbox, second.nextOffset).commands.map((c) => c.text)).toEqual(['two']);
  });
});

describe('questions', () => {
  it('the first answer wins, and a withdrawn or answered question is no longer open', async () => {
    const ws = workspace();
    const file = join(ws, '.ralph', 'control', 'questions.jsonl');
    const asked = whenAsked();
    const waiting = ask({
      questionsFile: file,
      kind: 'question',
      text: 'Which?',
      options: ['a', 'b'],
      runId: 'r1',
      iteration: 1,
      defaultAnswer: 'a',
      pollMs: 10,
      onAsked: asked.resolve,
    });
    await asked.written;
    expect(openQuestions(file)).toHaveLength(1);
    expect(() => answer(ws, 'c')).toThrow(/takes one of: "a", "b"/);
    const answered = answer({ workspace: ws, source: 'dashboard' }, ' B ').question;
    expect(answered.answer).toBe('b');
    expect(() => answer(ws, 'a', { id: answered.id })).toThrow(/already answered \("b" by dashboard\)/);
    const outcome = await waiting;
    expect(outcome).toMatchObject({ kind: 'answered', record: { answer: 'b', by: 'dashboard' } });
    expect(openQuestions(file)).toEqual([]);
    expect(readQuestions(file).get(answered.id)?.answer).toBe('b');
  });

  it('times out with the default answer, and an approval needs a reason to be rejected', async () => {
    const ws = workspace();
    const file = join(ws, '.ralph', 'control', 'questions.jsonl');
    const outcome = await ask({
      questionsFile: file,
      kind: 'question',
      text: 'Still there?',
      runId: null,
      iteration: null,
      timeoutMs: 30,
      defaultAnswer: 'go on',
      pollMs: 5,
    });
    expect(outcome).toMatchObject({ kind: 'timeout', record: { answer: 'go on', by: 'timeout' } });
    const asked = whenAsked();
    const approval = ask({
      questionsFile: file,
      kind: 'approval',
      text: 'Commit?',
      runId: null,
      iteration: 2,
      defaultAnswer: '',
      pollMs: 5,
      onAsked: asked.resolve,
    });
    await asked.written;
    expect(() => reject(ws, ' ')).toThrow(/say why/);
    reject(ws, 'tests first');
    expect((await approval).record).toMatchObject({ answer: 'reject', reason: 'tests first' });
  });
});

describe('a question kept open across a stop', () => {
  const base = (file: string) => ({
    questionsFile: file,
    kind: 'question' as const,
    text: 'Which?',
    runId: 'r1',
    iteration: 3,
    defaultAnswer: '',
    pollMs: 5,
  });

  it('given up with keepOpen, it stays open; asked again (rejoin) after the loop held it, it is the same question', async () => {
    const ws = workspace();
    const file = join(ws, '.ralph', 'control', 'questions.jsonl');
    const stopped = new AbortController();
    stopped.abort();
    const first = await ask({ ...base(file), keepOpen: true, signal: stopped.signal });
    expect(first.kind).toBe('abandoned');
    expect(openQuestions(file).map((q) => q.id)).toEqual([first.record.id]);
    // Not held by the loop: a new question.
    const other = ask({ ...base(file), rejoin: true, keepOpen: true, signal: stopped.signal });
    expect((await other).record.id).not.toBe(first.record.id);
    // Held (a stop cut the iteration short): the re-run's ask is the same question, and its answer.
    appendFileSync(file, `${JSON.stringify({ ...first.record, held: true })}\n`);
    const asked = whenAsked();
    const again = ask({ ...base(file), rejoin: true, onAsked: asked.resolve });
    await asked.written;
    answer(ws, 'this one', { id: first.record.id });
    expect(await again).toMatchObject({
      kind: 'answered',
      record: { id: first.record.id, answer: 'this one' },
    });
    // Another iteration, or other text, is not the same question.
    const stopped2 = new AbortController();
    stopped2.abort();
    const later = await ask({ ...base(file), iteration: 4, rejoin: true, signal: stopped2.signal });
    expect(later.record.id).not.toBe(first.record.id);
  });

  it('askAgain: an answer given meanwhile settles it at once; an open one gets a fresh timeout', async () => {
    const ws = workspace();
    const file = join(ws, '.ralph', 'control', 'questions.jsonl');
    const stopped = new AbortController();
    stopped.abort();
    const held = (await ask({ ...base(file), keepOpen: true, signal: stopped.signal })).record;
    let now = 1_000;
    const waiting = askAgain({ ...base(file), timeoutMs: 50, now: () => now }, held);
    expect(readQuestions(file).get(held.id)?.expires_at).toBe(1_050);
    now = 2_000;
    expect(await waiting).toMatchObject({ kind: 'timeout', record: { id: held.id, by: 'timeout' } });
    const settled = readQuestions(file).get(held.id);
    expect(await askAgain(base(file), settled!)).toMatchObject({ kind: 'timeout', record: { id: held.id } });
  });
});

describe('limitWarnings', () => {
  const counters = (o: Partial<Counters>): Counters => ({
    iterations: 0,
    elapsedMs: 0,
    costUsd: 0,
    tokens: 0,
    consecutiveFailures: 0,
    ...o,
  });
  const limits: Limits = {
    maxIterations: 10,
    maxRuntimeMs: undefined,
    maxCostUsd: 4,
    maxTokens: undefined,
    maxConsecutiveFailures: 3,
  };

  it('warns once per threshold, at the highest reached', () => {
    expect(limitWarnings(counters({ iterations: 4 }), limits, {})).toEqual([]);
    expect(limitWarnings(counters({ iterations: 5, costUsd: 3.9 }), limits, {})).toEqual([
      {
        limit: 'iterations',
        percent: 50,
        message: '50 % of the iterations limit used (5 iterations of 10 iterations)',
      },
      { limit: 'cost', percent: 95, message: '95 % of the cost limit used ($3.90 of $4.00)' },
    ]);
    expect(limitWarnings(counters({ iterations: 7 }), limits, { iterations: 50 })).toEqual([]);
  });

  it('one iteration is said in the singular', () => {
    const two = { ...limits, maxIterations: 2 };
    expect(limitWarnings(counters({ iterations: 1 }), two, {})[0]?.message).toBe(
      '50 % of the iterations limit used (1 iteration of 2 iterations)',
    );
  });

  it('property: never repeats a threshold, never warns below 50 % or at the limit', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 }), { maxLength: 30 }), (steps) => {
        const warned: Record<string, number> = {};
        let iterations = 0;
        const given: number[] = [];
        for (const s of steps) {
          iterations = Math.min(10, iterations + s);
          for (const w of limitWarnings(counters({ iterations }), limits, warned)) {
            expect(WARN_AT_PERCENT).toContain(w.percent);
            expect(iterations / 10).toBeGreaterThanOrEqual(w.percent / 100);
            expect(iterations).toBeLessThan(10);
            warned[w.limit] = w.percent;
            given.push(w.percent);
          }
        }
        expect([...given].sort((a, b) => a - b)).toEqual(given);
        expect(new Set(given).size).toBe(given.length);
      }),
    );
  });
});

describe('notificationOf', () => {
  it('maps the events worth a human’s attention, and only the first parked announcement', () => {
    const at = new Date(0);
    const parked = { type: 'loop.parked', iteration: 1, until: 5, remainingMs: 5, message: 'limit' } as const;
    expect(notificationOf({ ...parked, first: true }, 'r', '/w', at)?.kind).toBe('parked');
    expect(notificationOf({ ...parked, first: false }, 'r', '/w', at)).toBeUndefined();
    expect(
      notificationOf(
        {
          type: 'human.question',
          iteration: 1,
          id: 'a-1',
          kind: 'approval',
          text: 'Commit?',
          expiresAt: null,
        },
        'r',
        '/w',
        at,
      ),
    ).toMatchObject({ kind: 'approval', message: 'Commit?', run_id: 'r' });
    expect(notificationOf({ type: 'notice', level: 'info', message: 'x' }, 'r', '/w', at)).toBeUndefined();
  });
});
