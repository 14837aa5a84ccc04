import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';
import { PRESETS, presetFile } from '../../../src/config/presets.ts';
import { TDD_REPORT_SECTIONS } from '../../../src/config/schema/tdd.ts';
import { selectHat } from '../../../src/routing/select-hat.ts';
import {
  appendHistory,
  archiveName,
  decideMode,
  type FailureStreak,
  type HistoryEntry,
  historyLine,
  isStuck,
  nextFailureStreak,
  openCreativeTasks,
  parseReport,
  parseTddState,
  scopeViolations,
  shouldArchive,
  tddOwnPaths,
} from '../../../src/workflows/tdd-decisions.ts';

const SECTIONS: string[] = [...TDD_REPORT_SECTIONS];
const STATE = `# Goal
Ship a duration parser.

# Current task
Parse \`1h30m\`.

# Constraints
- strict TypeScript
- never skip a test

# Creative tasks
- [ ] storyboard for the demo
- [x] script that renders it
<!-- - [ ] commented-out example -->

# History
- Iteration 1 (2026-11-20) — ENGINEERING, tests failed: first test
`;

const entry = (over: Partial<HistoryEntry> = {}): HistoryEntry => ({
  iteration: 2,
  date: new Date('2026-11-21T10:00:00Z'),
  status: 'ENGINEERING',
  tests: 'passed',
  summary: 'parser handles hours',
  ...over,
});

describe('parseTddState', () => {
  it('reads every section', () => {
    const s = parseTddState(STATE);
    expect(s).toMatchObject({
      ok: true,
      problems: [],
      goal: 'Ship a duration parser.',
      currentTask: 'Parse `1h30m`.',
      constraints: '- strict TypeScript\n- never skip a test',
      creativeTasks: [
        { text: 'storyboard for the demo', done: false },
        { text: 'script that renders it', done: true },
      ],
      history: ['Iteration 1 (2026-11-20) — ENGINEERING, tests failed: first test'],
    });
    expect(openCreativeTasks(s)).toBe(1);
  });

  it('is corrupted when a required section is missing or empty', () => {
    const s = parseTddState('# Goal\n\n# Current task\n<!-- only a comment -->\n# Notes\nx\n');
    expect(s.ok).toBe(false);
    expect(s.problems).toEqual([
      'section "# Goal" is empty',
      'section "# Current task" is empty',
      'missing section "# Constraints"',
    ]);
    expect(parseTddState('').problems).toHaveLength(3);
  });

  it('accepts any heading level and ignores headings inside fenced code', () => {
    const s = parseTddState(
      '## Goal\nA\n```md\n# Constraints\nfake\n```\n## Current task:\nB\n### Constraints\nC\n',
    );
    expect(s).toMatchObject({ ok: true, goal: 'A\n```md\n# Constraints\nfake\n```', currentTask: 'B' });
    expect(s.constraints).toBe('C');
  });

  it('counts text after the section name in the heading as content', () => {
    const s = parseTddState(
      '# Goal: Ship the parser\n## Current task (draft)\nB\n# **Constraints** — none yet\n',
    );
    expect(s).toMatchObject({ ok: true, goal: 'Ship the parser', currentTask: '(draft)\nB' });
    expect(s.constraints).toBe('none yet');
    expect(parseTddState('# Goals\nA\n# Current task\nB\n# Constraints\nC\n').problems).toEqual([
      'missing section "# Goal"',
    ]);
  });

  it('the preset template is a valid shape that still needs filling in', () => {
    const s = parseTddState(readFileSync(presetFile('tdd', 'loop/state.md'), 'utf8'));
    expect(s.ok).toBe(false);
    expect(s.problems.every((p) => p.endsWith('is empty'))).toBe(true);
    expect(s.creativeTasks).toEqual([]);
    expect(s.history).toEqual([]);
  });
});

describe('appendHistory', () => {
  it('appends after the last entry, in the documented format', () => {
    const out = appendHistory(STATE, entry());
    expect(out).toBe(
      `${STATE.trimEnd()}\n- Iteration 2 (2026-11-21) — ENGINEERING, tests passed: parser handles hours\n`,
    );
  });

  it('creates the section at the end when it is missing, keeping CRLF files CRLF', () => {
    const doc = '# Goal\r\nA\r\n# Current task\r\nB\r\n# Constraints\r\nC\r\n';
    expect(appendHistory(doc, entry({ tests: 'not run', summary: '' }))).toBe(
      `${doc}\r\n# History\r\n\r\n- Iteration 2 (2026-11-21) — ENGINEERING, tests not run\r\n`,
    );
    expect(appendHistory('# Goal\nA', entry())).toMatch(/^# Goal\nA\n\n# History\n\n- Iteration 2 /);
  });

  it('inserts before the next section and flattens the summary to one line', () => {
    const doc = '# History\n- one\n\n# Goal\nA\n';
    const out = appendHistory(doc, entry({ summary: 'two\nlines <!-- x -->', status: 'creative' }));
    expect(out).toBe(
      '# History\n- one\n- Iteration 2 (2026-11-21) — CREATIVE, tests passed: two lines <! -- x - ->\n\n# Goal\nA\n',
    );
  });

  it('uses a date string as given', () => {
    expect(historyLine(entry({ date: '2026-01-02', tests: 'failed' }))).toBe(
      '- Iteration 2 (2026-01-02) — ENGINEERING, tests failed: parser handles hours',
    );
  });
});

/** Lines that stress the section scanner: headings (known, unknown, any level), fences, comments. */
const docLine = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc
    .tuple(
      fc.constantFrom('#', '##', '###', '  #', '#######'),
      fc.constantFrom('Goal', 'Current task', 'Constraints', 'Creative tasks', 'History', 'Notes', 'Goals'),
      fc.constantFrom('', ':', ' (draft)', ' #'),
    )
    .map(([h, t, s]) => `${h} ${t}${s}`),
  fc.constantFrom(
    '```',
    '~~~',
    '```md',
    '- [ ] task',
    '- [x] done',
    '- item',
    '<!--',
    '-->',
    '<!-- c -->',
    '',
  ),
);
const stateDoc = fc
  .tuple(fc.array(docLine, { maxLength: 30 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
  .map(([lines, nl, trailing]) => lines.join(nl) + (trailing ? nl : ''));
const historyEntry = fc.record({
  iteration: fc.nat({ max: 100_000 }),
  date: fc.oneof(fc.string({ maxLength: 12 }), fc.date({ noInvalidDate: true })),
  status: fc.string({ maxLength: 12 }),
  tests: fc.constantFrom('passed' as const, 'failed' as const, 'not run' as const),
  summary: fc.string({ maxLength: 60 }),
});

describe('property 1: state persistence', () => {
  it('appendHistory never changes Goal, Current task, Constraints or Creative tasks', () => {
    fc.assert(
      fc.property(fc.oneof(stateDoc, fc.string()), historyEntry, (doc, e) => {
        const before = parseTddState(doc);
        const after = parseTddState(appendHistory(doc, e));
        expect(after.goal).toBe(before.goal);
        expect(after.currentTask).toBe(before.currentTask);
        expect(after.constraints).toBe(before.constraints);
        expect(after.creativeTasks).toEqual(before.creativeTasks);
        expect(after.ok).toBe(before.ok);
        expect(after.problems).toEqual(before.problems);
      }),
      { numRuns: 500 },
    );
  });

  it('parse ∘ appendHistory grows the history by exactly the new line, in order', () => {
    fc.assert(
      fc.property(fc.oneof(stateDoc, fc.string()), fc.array(historyEntry, { maxLength: 4 }), (doc, es) => {
        let text = doc;
        const expected = [...parseTddState(doc).history];
        for (const e of es) {
          text = appendHistory(text, e);
          expected.push(historyLine(e).slice(2));
          expect(parseTddState(text).history).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('decideMode (property 2 test enforcement, property 5 mode consistency)', () => {
  const input = fc.record({
    testsPassed: fc.constantFrom(true, false, null),
    creativeTasksOpen: fc.nat({ max: 5 }),
    engineeringWorkLeft: fc.boolean(),
  });

  it('the table', () => {
    expect(decideMode({ testsPassed: false, creativeTasksOpen: 3, engineeringWorkLeft: false })).toBe(
      'engineering',
    );
    expect(decideMode({ testsPassed: null, creativeTasksOpen: 0, engineeringWorkLeft: false })).toBe(
      'engineering',
    );
    expect(decideMode({ testsPassed: true, creativeTasksOpen: 1, engineeringWorkLeft: true })).toBe(
      'creative',
    );
    expect(decideMode({ testsPassed: true, creativeTasksOpen: 0, engineeringWorkLeft: true })).toBe(
      'engineering',
    );
    expect(decideMode({ testsPassed: true, creativeTasksOpen: 0, engineeringWorkLeft: false })).toBe('done');
  });

  it('creative never on red or untested; engineering whenever tests are red', () => {
    fc.assert(
      fc.property(input, (i) => {
        const mode = decideMode(i);
        if (i.testsPassed !== true) expect(mode).toBe('engineering');
        if (mode === 'creative') expect(i.testsPassed).toBe(true);
      }),
    );
  });

  it('engineering only with red tests or work left; done only when everything is finished', () => {
    fc.assert(
      fc.property(input, (i) => {
        const mode = decideMode(i);
        if (mode === 'engineering') expect(i.testsPassed !== true || i.engineeringWorkLeft).toBe(true);
        if (mode === 'done') expect(i).toMatchObject({ testsPassed: true, creativeTasksOpen: 0 });
        if (mode === 'done') expect(i.engineeringWorkLeft).toBe(false);
      }),
    );
  });
});

describe('scopeViolations', () => {
  const own = tddOwnPaths({
    stateFile: 'loop/state.md',
    reportFile: 'loop/last_output.md',
    archiveDir: 'loop/archive',
    testsReportFile: 'CI.md',
  });

  it("Ralph's own paths", () => {
    expect(own).toEqual(['.ralph', 'loop', 'loop/archive', 'CI.md']);
  });

  it('reports files outside every allowed path, normalised, once', () => {
    const changed = [
      'src/a.ts',
      './src/b.ts',
      'srcx/c.ts',
      'test\\d.ts',
      'README.md',
      'README.md',
      'loop/state.md',
    ];
    expect(scopeViolations(changed, ['src/', 'test'], own)).toEqual(['srcx/c.ts', 'README.md']);
    expect(scopeViolations(['../outside', '.ralph/state.json', 'CI.md'], ['.'], own)).toEqual(['../outside']);
    expect(scopeViolations(changed, [], own)).toEqual([]);
    expect(scopeViolations(['package.json', 'src/x/../y.ts'], ['package.json', 'src'], [])).toEqual([]);
  });

  const segment = fc.constantFrom('src', 'test', 'lib', 'loop', '.ralph', 'a', 'src2');
  const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));

  it('property: a violation is never under an allowed or ignored path; everything else under one', () => {
    fc.assert(
      fc.property(
        fc.array(path),
        fc.array(path, { minLength: 1, maxLength: 3 }),
        fc.array(path),
        (files, allowed, ignore) => {
          const v = scopeViolations(files, allowed, ignore);
          const under = (f: string, dirs: string[]) => dirs.some((d) => f === d || f.startsWith(`${d}/`));
          for (const f of files) expect(v.includes(f)).toBe(!under(f, allowed) && !under(f, ignore));
          expect(new Set(v).size).toBe(v.length);
          expect(scopeViolations(files, [], ignore)).toEqual([]);
        },
      ),
    );
  });
});

describe('archiving and stuck detection', () => {
  it('archives every archive_after iterations, named after the report', () => {
    expect(shouldArchive(100, 100)).toBe(true);
    expect(shouldArchive(99, 100)).toBe(false);
    expect(shouldArchive(0, 100)).toBe(false);
    expect(archiveName(100)).toBe('last_output-iteration-0100.md');
    expect(archiveName(7, 'loop/report.txt')).toBe('report-iteration-0007.txt');
    expect(archiveName(12345, 'loop/last_output')).toBe('last_output-iteration-12345.md');
  });

  it('property: within N iterations, archives exactly floor(N / k) times, at multiples of k', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 50 }), (n, k) => {
        const at = Array.from({ length: n }, (_, i) => i + 1).filter((i) => shouldArchive(i, k));
        expect(at.length).toBe(Math.floor(n / k));
        expect(at.every((i) => i % k === 0)).toBe(true);
        expect(new Set(at.map((i) => archiveName(i))).size).toBe(at.length);
      }),
    );
  });

  it('property: stuck exactly when the last `limit` test runs failed the same way', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(null, 'a', 'b'), { maxLength: 30 }),
        fc.integer({ min: 1, max: 5 }),
        (runs, limit) => {
          let streak: FailureStreak = { signature: null, repeats: 0 };
          runs.forEach((sig, i) => {
            streak = nextFailureStreak(streak, sig);
            const tail = runs.slice(Math.max(0, i + 1 - limit), i + 1);
            const expected = sig !== null && tail.length === limit && tail.every((s) => s === sig);
            expect(isStuck(streak, limit)).toBe(expected);
          });
        },
      ),
    );
  });
});

describe('preset tdd', () => {
  const { config } = loadConfig({ file: presetFile('tdd', 'ralph.yml'), cwd: '/' });

  it('is registered, and every file exists', () => {
    const preset = PRESETS.find((p) => p.name === 'tdd');
    expect(preset?.files).toEqual([
      'ralph.yml',
      'loop/state.md',
      'loop/agent-prompt.md',
      'loop/last_output.md',
    ]);
    for (const f of preset!.files)
      expect(readFileSync(presetFile('tdd', f), 'utf8').length).toBeGreaterThan(0);
  });

  it('validates, with the tests gate writing loop/ci.md and the tdd defaults', () => {
    expect(config.gates.tests).toEqual({
      command: 'npm test',
      timeout_seconds: 300,
      report_file: 'loop/ci.md',
    });
    expect(config.tdd).toMatchObject({ state_file: 'loop/state.md', report_file: 'loop/last_output.md' });
    expect(config.event_loop).toMatchObject({ prompt_file: 'loop/agent-prompt.md', max_iterations: 100 });
  });

  it('routes the start and the engineering mode to engineering, the creative mode to creative', () => {
    const route = (topic: string) =>
      selectHat(config.hats, [{ topic, payload: null, source: 'gate', iteration: 1 }], { activations: {} });
    expect(route('task.start').hatId).toBe('engineering');
    expect(route('task.resume').hatId).toBe('engineering');
    expect(route('tdd.engineering').hatId).toBe('engineering');
    expect(route('tdd.creative').hatId).toBe('creative');
    // The test results themselves are for the log: Ralph's mode event decides the route.
    expect(route('tests.failed').hatId).toBeNull();
    expect(route('tests.passed').hatId).toBeNull();
    // A quiet iteration's default event routes nowhere either.
    expect(route('tdd.iteration').hatId).toBeNull();
    for (const hat of Object.values(config.hats)) expect(hat.default_publishes).toBe('tdd.iteration');
  });

  it('the agent prompt names every required section and the completion promise', () => {
    const prompt = readFileSync(presetFile('tdd', 'loop/agent-prompt.md'), 'utf8');
    for (const s of SECTIONS) expect(prompt).toMatch(new RegExp(`^#+ ${s}`, 'm'));
    expect(prompt).toContain('LOOP_COMPLETE');
    expect(parseReport(prompt.split('```markdown')[1]!.split('```')[0]!, SECTIONS).missing).toEqual([]);
  });
});
