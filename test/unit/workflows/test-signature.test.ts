import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failingTestSignature } from '../../../src/workflows/test-signature.ts';

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
