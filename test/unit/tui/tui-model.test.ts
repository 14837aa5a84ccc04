import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeEvent } from '../../../src/observe/describe-event.ts';
import type { LoopEvent } from '../../../src/observe/events.ts';
import { clip } from '../../../src/tui/text-fit.ts';
import { bar, headerLines, outputRows, phaseText, wrap } from '../../../src/tui/tui-layout.ts';
import { emptyModel, MAX_EVENTS, MAX_OUTPUT_LINES, reduce } from '../../../src/tui/tui-model.ts';

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
    expect(m.events[0]?.text).toBe('paused — `ralph resume` goes on, `ralph stop` ends the loop');
  });

  it('shows a wait for a pull request merge in the phase and the events pane (forge.wait_for_merge)', () => {
    const m = emptyModel();
    reduce(m, started, 0);
    const pr = {
      type: 'forge.pull_request' as const,
      iteration: 3,
      number: 7,
      url: 'https://github.com/o/r/pull/7',
      draft: false,
      milestone: 'Foundation',
      branch: 'ralph/foundation',
      base: 'main',
    };
    reduce(m, { ...pr, action: 'waiting' }, 0);
    expect(m.phase).toEqual({ kind: 'merge', number: 7, url: 'https://github.com/o/r/pull/7' });
    expect(phaseText(m, 0)).toBe('WAITING FOR MERGE — PR #7 https://github.com/o/r/pull/7');
    expect(m.events[0]?.text).toContain('waiting for PR #7 to be merged');
    reduce(m, { ...pr, action: 'merged' }, 0);
    expect(m.phase.kind).toBe('running');
  });

  it("words the events pane as describeEvent does (the console's and the logs' words), marked by level", () => {
    const m = emptyModel();
    const listed: LoopEvent[] = [
      { type: 'git.committed', iteration: 3, commit: 'abcdef1234', message: 'ralph: iteration 3\n\nbody' },
      { type: 'loop.resumed', iteration: 3, from: 'waiting_for_human' },
      {
        type: 'completion.decided',
        iteration: 3,
        accepted: false,
        reasons: ['open tasks'],
        persistent: false,
      },
    ];
    for (const e of listed) reduce(m, e, 0);
    expect(m.events.map((e) => e.text)).toEqual(listed.map(describeEvent).reverse());
    const failed: LoopEvent = {
      type: 'gate.finished',
      iteration: 3,
      gate: 'tests',
      summary: { command: 'npm test', passed: false, exit_code: 1, timed_out: false, duration_ms: 5 },
      output: '',
    };
    reduce(m, failed, 0);
    expect(m.events[0]).toEqual({ at: 0, text: describeEvent(failed), level: 'error' });
    // What the output pane and the header show does not repeat in the events pane.
    reduce(m, started, 0);
    reduce(m, { type: 'agent.output', iteration: 3, stream: 'stdout', text: 'x\n' }, 0);
    expect(m.events).toHaveLength(listed.length + 1);
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
    // The run's log path stays out of the narrow pane (`ralph logs` has it).
    expect(m.events[0]?.text).toBe('starting run r1 · backend claude · branch main');
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
  it('cuts every text into lines of at most the width at word boundaries, losing nothing but the spaces where it cuts', async () => {
    const { wrapLines } = await import('../../../src/tui/text-fit.ts');
    const fc = (await import('fast-check')).default;
    const text = fc
      .array(fc.oneof(fc.string({ maxLength: 30 }), fc.constant(' ')), { maxLength: 12 })
      .map((p) => p.join(''));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 5 }), fc.integer({ min: 4, max: 80 }), (texts, width) => {
        const lines = wrapLines(texts, width);
        for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
        // Texts are wrapped one by one.
        expect(lines).toEqual(texts.flatMap((t) => wrapLines([t], width)));
        for (const t of texts) {
          const [first = '', ...more] = wrapLines([t], width);
          for (const m of more) expect(m.startsWith('  ')).toBe(true);
          const rows = [first, ...more.map((m) => m.slice(2))];
          // Nothing is lost but the spaces at a cut: a URL or a path is all there, in order.
          expect(rows.join('').replace(/ /g, '')).toBe(t.replace(/ /g, ''));
          // A word that fits on a line is never cut.
          for (const word of t.split(' ').filter((w) => w.length > 0 && w.length <= width - 2))
            expect(
              rows.some((r) => r.split(' ').includes(word)),
              `${JSON.stringify(word)} in ${JSON.stringify(rows)}`,
            ).toBe(true);
        }
      }),
    );
  });

  it('breaks the runtime-files notice between words, the dashboard URL only where it must', async () => {
    const { wrapLines } = await import('../../../src/tui/text-fit.ts');
    expect(
      wrapLines(
        ["wrote .ralph/.gitignore: git ignores Ralph's runtime files (commit it with your project)"],
        40,
      ),
    ).toEqual([
      'wrote .ralph/.gitignore: git ignores',
      "  Ralph's runtime files (commit it with",
      '  your project)',
    ]);
    const url = 'http://127.0.0.1:40123/?token=0123456789abcdef0123456789abcdef';
    expect(wrapLines([`dashboard ${url}`], 40)).toEqual([
      'dashboard',
      `  ${url.slice(0, 38)}`,
      `  ${url.slice(38)}`,
    ]);
  });
});
