import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/observe/events.ts';
import { bar, clip, headerLines, outputRows, wrap } from '../../src/tui/tui-layout.ts';
import { emptyModel, MAX_EVENTS, MAX_OUTPUT_LINES, reduce } from '../../src/tui/tui-model.ts';

const started: LoopEvent = {
  type: 'iteration.started',
  iteration: 3,
  maxIterations: 30,
  hat: 'builder',
  backend: 'claude',
  elapsedMs: 60_000,
  branch: 'main',
  startedAt: 1_000_000,
};

describe('tui model', () => {
  it('follows the phase: running, waiting for a human, answered, paused, finished', () => {
    const m = emptyModel();
    reduce(m, started, 0);
    expect(m.phase.kind).toBe('running');
    reduce(
      m,
      { type: 'human.question', iteration: 3, id: 'q-1', kind: 'question', text: 'Which?', expiresAt: null },
      0,
    );
    expect(m.phase).toMatchObject({ kind: 'waiting', question: { id: 'q-1' } });
    reduce(
      m,
      { type: 'human.answered', iteration: 3, id: 'q-1', kind: 'question', answer: 'a', by: 'cli' },
      0,
    );
    expect(m.phase.kind).toBe('running');
    reduce(m, { type: 'loop.paused', iteration: 3 }, 0);
    expect(m.phase.kind).toBe('paused');
    expect(m.events[0]?.text).toBe('paused');
  });

  it('keeps output, events and iterations bounded, whatever arrives (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 400 }), (chunks) => {
        const m = emptyModel();
        reduce(m, started, 0);
        for (const text of chunks) {
          reduce(
            m,
            { type: 'agent.event', iteration: 3, event: { type: 'text', text: `${text}\n`.repeat(8) } },
            0,
          );
          reduce(m, { type: 'notice', level: 'info', message: text }, 0);
        }
        expect(m.output.length).toBeLessThanOrEqual(MAX_OUTPUT_LINES);
        expect(m.events.length).toBeLessThanOrEqual(MAX_EVENTS);
      }),
    );
  });

  it('shows live tokens and the clock from the iteration start', () => {
    const m = emptyModel();
    reduce(
      m,
      {
        type: 'loop.started',
        runId: 'r1',
        resumed: false,
        workspace: '/w',
        backend: 'claude',
        maxIterations: 30,
        branch: 'main',
        logFile: 'l',
        at: 0,
      },
      0,
    );
    reduce(m, started, 0);
    reduce(
      m,
      {
        type: 'agent.event',
        iteration: 3,
        event: {
          type: 'usage',
          usage: { inputTokens: 1000, outputTokens: 234, cacheReadTokens: 0, cacheWriteTokens: 0 },
        },
      },
      0,
    );
    const [first, second, third] = headerLines(
      m,
      { maxCostUsd: 5, maxTokens: 10_000, maxRuntimeMs: undefined },
      1_012_000,
      200,
    );
    expect(first).toBe('ralph r1 · claude · main · hat builder · iteration 3/30 · 1m12s');
    expect(second).toBe('tokens 1,234 of 10,000 ▓░░░░░░░ 12% · cost $0.0000 of $5.00 ░░░░░░░░ 0%');
    expect(third).toBe('running');
  });
});

describe('tui layout', () => {
  it('wraps, clips and scrolls the output pane', () => {
    expect(wrap('abcdefg', 3)).toEqual(['abc', 'def', 'g']);
    expect(wrap('\u001b[31mred\u001b[0m\tx', 10)).toEqual(['red  x']);
    expect(clip('abcdef', 4)).toBe('abc…');
    const m = emptyModel();
    m.output = ['one', 'two', 'three', 'four'];
    expect(outputRows(m, 10, 2, 0)).toEqual(['three', 'four']);
    expect(outputRows(m, 10, 2, 1)).toEqual(['two', 'three']);
    expect(outputRows(m, 10, 2, 99)).toEqual(['one', 'two']);
    expect(bar(5, 10, 4)).toBe('▓▓░░ 50%');
    expect(bar(50, 10, 4)).toBe('▓▓▓▓ 100%');
  });
});

describe('wrapLines', () => {
  it('cuts every text into lines of at most the width, losing nothing', async () => {
    const { wrapLines } = await import('../../src/tui/tui-layout.ts');
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 200 }), { maxLength: 5 }),
        fc.integer({ min: 4, max: 80 }),
        (texts, width) => {
          const lines = wrapLines(texts, width);
          for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
          // Each text is its first line plus its continuations without their indent.
          let i = 0;
          for (const t of texts) {
            let joined = lines[i++] ?? '';
            while (i < lines.length && joined.length < t.length) joined += (lines[i++] ?? '').slice(2);
            expect(joined).toBe(t);
          }
          expect(i).toBe(lines.length);
        },
      ),
    );
  });
});
