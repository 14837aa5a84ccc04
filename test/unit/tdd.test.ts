import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { PRESETS, presetFile } from '../../src/config/presets.ts';
import { TDD_REPORT_SECTIONS } from '../../src/config/schema/verify.ts';
import { selectHat } from '../../src/routing/select-hat.ts';
import {
  appendHistory,
  archiveName,
  decideMode,
  type FailureStreak,
  failingTestSignature,
  type HistoryEntry,
  historyLine,
  isStuck,
  nextFailureStreak,
  openCreativeTasks,
  parseReport,
  parseTddState,
  reportProblem,
  scopeViolations,
  shouldArchive,
  tddOwnPaths,
} from '../../src/workflows/tdd.ts';

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

describe('parseReport', () => {
  it('the preset example report is complete', () => {
    const r = parseReport(readFileSync(presetFile('tdd', 'loop/last_output.md'), 'utf8'), SECTIONS);
    expect(r).toEqual({ status: 'ENGINEERING', present: SECTIONS, missing: [] });
  });

  it('matches headings by prefix, whole words, any level, any case', () => {
    const r = parseReport(
      [
        '# Iteration 3 — 2026-11-21',
        '### status',
        'Blocked: waiting for the API key',
        '## 1. Tests run',
        '`npm test`: 2 failed',
        '## **Next iteration plan**',
        'fix the parser',
        '## Testsuite',
        'not Tests',
        '## Notes',
        '<!-- nothing -->',
        '## Changes',
        '```',
        '## Actions',
        '```',
      ].join('\n'),
      SECTIONS,
    );
    expect(r.status).toBe('BLOCKED');
    expect(r.present).toEqual(['Iteration', 'Status', 'Changes', 'Tests', 'Next']);
    expect(r.missing).toEqual(['Actions', 'Current state', 'Notes']);
  });

  it('reads field lines (not list items) such as **Status:** CREATIVE', () => {
    const r = parseReport('**Iteration:** 4\n**Status:** creative\n- Tests: passing\nNotes:\n', SECTIONS);
    expect(r.status).toBe('CREATIVE');
    expect(r.present).toEqual(['Iteration', 'Status']);
  });

  it('a status heading with its value counts', () => {
    expect(parseReport('## Status: ENGINEERING\n', ['Status'])).toEqual({
      status: 'ENGINEERING',
      present: ['Status'],
      missing: [],
    });
    expect(parseReport('', SECTIONS)).toEqual({ status: null, present: [], missing: SECTIONS });
  });

  it('reportProblem says what the next iteration must fix', () => {
    const file = 'loop/last_output.md';
    expect(reportProblem(file, { status: null, present: SECTIONS, missing: [] })).toBeUndefined();
    expect(reportProblem(file, { status: null, present: [], missing: ['Tests', 'Next'] })).toBe(
      'loop/last_output.md is missing required section(s): Tests, Next; write every section each iteration',
    );
    expect(reportProblem(file, null)).toMatch(/was not written/);
  });
});

/** Content lines that can never look like a heading or a `Name:` field. */
const contentLine = fc.stringMatching(/^[a-z0-9 .,()-]{1,30}$/).filter((s) => s.trim() !== '');
const reportSection = (name: string) =>
  fc.record({
    name: fc.constant(name),
    level: fc.integer({ min: 1, max: 4 }),
    title: fc.constantFrom(name, name.toUpperCase(), `${name} run`, `${name} — 2026-11-21`, `${name}:`),
    body: fc.array(contentLine, { minLength: 1, maxLength: 3 }),
  });
const completeReport = fc
  .tuple(...SECTIONS.map(reportSection))
  .chain((sections) => fc.shuffledSubarray(sections, { minLength: sections.length }));
type GenSection = { name: string; level: number; title: string; body: string[] };
const render = (sections: readonly GenSection[]) =>
  sections.map((s) => `${'#'.repeat(s.level)} ${s.title}\n${s.body.join('\n')}\n`).join('\n');

describe('property 3: report completeness', () => {
  it('finds every section of a complete report', () => {
    fc.assert(
      fc.property(completeReport, (sections) => {
        expect(parseReport(render(sections), SECTIONS)).toMatchObject({ present: SECTIONS, missing: [] });
      }),
    );
  });

  it('reports exactly the removed sections as missing, in the required order', () => {
    fc.assert(
      fc.property(
        completeReport,
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        (sections, drop) => {
          const removed = SECTIONS.filter((_, i) => drop[i]);
          const kept = sections.filter((s) => !removed.includes(s.name));
          const r = parseReport(render(kept), SECTIONS);
          expect(r.missing).toEqual(removed);
          expect(r.present).toEqual(SECTIONS.filter((n) => !removed.includes(n)));
        },
      ),
    );
  });

  it('reads the status whatever its case', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom('ENGINEERING', 'CREATIVE', 'BLOCKED')
          .chain((status) => fc.tuple(fc.constant(status), fc.mixedCase(fc.constant(status)))),
        ([status, written]) => {
          expect(parseReport(`## Status\nMode: ${written} (tests red)\n`, ['Status']).status).toBe(status);
        },
      ),
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

/** A small deterministic PRNG, so one fast-check seed renders one exact output. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RUNNERS = ['vitest', 'jest', 'tap', 'pytest', 'go', 'cargo'] as const;
type Runner = (typeof RUNNERS)[number];

/** The output of `runner` for these failing and passing tests, with timings, colours and order from `seed`. */
function runnerOutput(
  runner: Runner,
  failing: readonly string[],
  passing: readonly string[],
  seed: number,
): string {
  const rand = prng(seed);
  const ms = () => Math.floor(rand() * 5000);
  const sec = () => (rand() * 10).toFixed(2);
  const color = (text: string) =>
    rand() < 0.5 ? `\x1b[${31 + Math.floor(rand() * 6)}m${text}\x1b[39m` : text;
  const f = failing.length;
  const p = passing.length;
  const lines: string[] = [];
  const summary: string[] = [];
  const each = (names: readonly string[], line: (n: string, i: number) => string[]) =>
    names.forEach((n, i) => {
      lines.push(...line(n, i));
    });
  switch (runner) {
    case 'vitest':
      each(failing, (n) => [` ${color('×')} test/a.test.ts > suite > ${n} ${ms()}ms`]);
      each(passing, (n) => [` ${color('✓')} test/a.test.ts > suite > ${n} ${ms()}ms`]);
      summary.push(...failing.map((n) => ` ${color('FAIL')}  test/a.test.ts > suite > ${n}`));
      summary.push(`Tests  ${f ? `${color(`${f} failed`)} | ` : ''}${p} passed (${f + p})`);
      summary.push(`Duration  ${sec()}s (transform ${ms()}ms)`);
      break;
    case 'jest':
      each(failing, (n) => [`    ${color('✕')} ${n} (${ms()} ms)`, `  ● suite › ${n}`]);
      each(passing, (n) => [`    ${color('✓')} ${n} (${ms()} ms)`]);
      summary.push(`Tests:       ${f ? `${f} failed, ` : ''}${p} passed, ${f + p} total`, `Time: ${sec()} s`);
      break;
    case 'tap':
      each(failing, (n, i) => [`not ok ${i + 1} - ${n}`, '  ---', `  duration_ms: ${ms()}.5`, '  ...']);
      each(passing, (n, i) => [`ok ${f + i + 1} - ${n}`, '  ---', `  duration_ms: ${ms()}`, '  ...']);
      summary.push(`# pass ${p}`, `# fail ${f}`, `# duration_ms ${ms()}`);
      break;
    case 'pytest':
      each(passing, (n) => [`tests/test_a.py::${n} PASSED`]);
      summary.push(...failing.map((n) => `${color('FAILED')} tests/test_a.py::${n} - assert ${ms()} == 2`));
      summary.push(`=== ${f ? `${f} failed, ` : ''}${p} passed in ${sec()}s ===`);
      break;
    case 'go':
      each(failing, (n) => [
        `=== RUN   Test${n}`,
        `--- FAIL: Test${n} (${sec()}s)`,
        `    a_test.go:${ms()}: boom`,
      ]);
      each(passing, (n) => [`=== RUN   Test${n}`, `--- PASS: Test${n} (${sec()}s)`]);
      summary.push(f ? 'FAIL' : 'PASS', `${f ? 'FAIL' : 'ok  '}\texample.com/pkg\t${sec()}s`);
      break;
    case 'cargo':
      each(failing, (n) => [`test tests::${n} ... ${color('FAILED')}`]);
      each(passing, (n) => [`test tests::${n} ... ok`]);
      summary.push(
        `test result: ${f ? 'FAILED' : 'ok'}. ${p} passed; ${f} failed; 0 ignored; finished in ${sec()}s`,
      );
      break;
  }
  // Runners interleave results as tests finish: shuffle the per-test lines.
  for (let i = lines.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
  }
  return [`> run ${seed}`, ...lines, '', ...summary, ''].join('\n');
}

const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z_]{2,9}$/), { minLength: 1, maxLength: 8 });

describe('failingTestSignature', () => {
  it('names the failing tests of each runner', () => {
    const cases: [Runner, string][] = [
      ['vitest', 'test/a.test.ts > suite > bad'],
      ['jest', 'bad\nsuite › bad'],
      ['tap', 'bad'],
      ['pytest', 'tests/test_a.py::bad'],
      ['go', 'Testbad\nexample.com/pkg'],
      ['cargo', 'tests::bad'],
    ];
    for (const [runner, expected] of cases) {
      const sig = failingTestSignature(runnerOutput(runner, ['bad'], ['good'], 1));
      expect(sig, runner).toBe(expected.split('\n').sort().join('\n'));
    }
  });

  it('reads unittest, generic FAIL: lines and strips line numbers and temp paths', () => {
    expect(
      failingTestSignature(
        'FAIL: test_x (mod.Case)\nERROR: test_y (mod.Case)\nFAILED (failures=1, errors=1)\n',
      ),
    ).toBe('test_x (mod.Case)\ntest_y (mod.Case)');
    const a = failingTestSignature('FAIL: /tmp/run-abc123/spec.js:12:7 adds (3 ms)');
    const b = failingTestSignature('FAIL: /tmp/run-zz9/spec.js:40:1 adds (12 ms)');
    expect(a).toBe('<tmp>/spec.js adds');
    expect(b).toBe(a);
  });

  it('strips durations only where they are durations', () => {
    expect(failingTestSignature('× parses v2s 12ms\n× parses v3s (4 ms)\n× waits [1.5 s]')).toBe(
      'parses v2s\nparses v3s\nwaits',
    );
  });

  it('ignores TAP todo/skip and jest console output', () => {
    expect(failingTestSignature('not ok 1 - later # TODO\nok 2 - b\n# fail 0\n')).toBeNull();
    expect(
      failingTestSignature('  ● Console\n\n    console.log\n      hi\nTests: 2 passed, 2 total\n'),
    ).toBeNull();
  });

  it('falls back to a hash of the tail when failures cannot be named', () => {
    const crash = (ms: number, at: string) =>
      `\x1b[31mError: Cannot find module './x'\x1b[0m\n    at load (/tmp/${at}/index.js:${ms}:3)\nDuration ${ms}ms\n`;
    const sig = failingTestSignature(crash(12, 'a1'));
    expect(sig).toMatch(/^hash:[0-9a-f]{16}$/);
    expect(failingTestSignature(crash(9876, 'b2'))).toBe(sig);
    expect(failingTestSignature("Error: Cannot find module './y'\n")).not.toBe(sig);
  });

  it('with assumeFailed, always a signature', () => {
    expect(failingTestSignature('')).toBeNull();
    expect(failingTestSignature('', { assumeFailed: true })).toMatch(/^hash:/);
    expect(failingTestSignature('all good\n', { assumeFailed: true })).toMatch(/^hash:/);
  });

  it('property: same failures with other timings, colours and order → same signature', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RUNNERS),
        names,
        names,
        fc.integer(),
        fc.integer(),
        (runner, failing, all, s1, s2) => {
          const passing = all.filter((n) => !failing.includes(n));
          const a = failingTestSignature(runnerOutput(runner, failing, passing, s1));
          const b = failingTestSignature(runnerOutput(runner, [...failing].reverse(), passing, s2));
          expect(a).not.toBeNull();
          expect(b).toBe(a);
          for (const n of failing) expect(a).toContain(n);
          // Passing tests never change it.
          expect(failingTestSignature(runnerOutput(runner, failing, [], s1))).toBe(a);
        },
      ),
    );
  });

  it('property: a different failing set → a different signature', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RUNNERS), names, names, fc.integer(), (runner, x, y, seed) => {
        fc.pre([...x].sort().join() !== [...y].sort().join());
        expect(failingTestSignature(runnerOutput(runner, x, [], seed))).not.toBe(
          failingTestSignature(runnerOutput(runner, y, [], seed)),
        );
      }),
    );
  });

  it('property: passing output → null', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RUNNERS), names, fc.integer(), (runner, passing, seed) => {
        expect(failingTestSignature(runnerOutput(runner, [], passing, seed))).toBeNull();
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
