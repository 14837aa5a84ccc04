import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeGitWorkspace } from '../helpers/git-workspace.ts';
import { fakeConfig, makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

/** A file name a careless command would split, expand or run. */
const NASTY = `we ird $(touch pwned) 'q" \`touch pwned2\`.txt`;

const testsConfig = (lines: string[]) => ['gates:', '  tests:', ...lines.map((l) => `    ${l}`)].join('\n');

describe('gates.tests.affected', () => {
  it('runs only the affected tests per iteration, and the slow full suite before completion is accepted', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 5 })}git:\n  commit: true\n${testsConfig([
        'command: sh full.sh',
        'affected: sh affected.sh {files}',
      ])}\n`,
      // The full suite checks every file and takes 2 s; the affected run checks only src/a.txt.
      'full.sh': 'sleep 2\ngrep -q good src/a.txt && grep -q good src/b.txt\n',
      'affected.sh':
        'for f in "$@"; do case "$f" in src/a.txt) grep -q good src/a.txt || exit 1;; esac; done\n',
      'src/a.txt': 'good\n',
      'src/b.txt': 'good\n',
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do: [{ write: { path: src/a.txt, content: "good, v2\\n" } }]',
        // b.txt breaks, and no affected test covers it: only the full suite sees it.
        '  - when: { iteration: 2 }',
        '    do: [{ write: { path: src/b.txt, content: "broken\\n" } }, { print: LOOP_COMPLETE }]',
        '  - do: [{ write: { path: src/b.txt, content: "good again\\n" } }, { print: LOOP_COMPLETE }]',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const [first, second, third] = readRecords(dir);
    expect(first?.gates.tests).toMatchObject({
      scope: 'affected',
      files: ['src/a.txt'],
      command: 'sh affected.sh src/a.txt',
      passed: true,
    });
    expect(second?.gates.tests).toMatchObject({
      scope: 'full',
      why: 'completion requested',
      command: 'sh full.sh',
      passed: false,
    });
    expect(second?.decision.completion.accepted).toBe(false);
    expect(second?.decision.completion.reasons.join(' ')).toContain(
      'the tests are failing (sh full.sh, exit 1)',
    );
    expect(third?.gates.tests).toMatchObject({ scope: 'full', passed: true });
    expect(third?.decision.completion.accepted).toBe(true);
    expect(readState(dir)).toMatchObject({ stop_reason: 'completed', iterations: 3 });
    // The time saved: the affected run takes a fraction of the full suite's 2 s.
    expect(second?.gates.tests.duration_ms).toBeGreaterThanOrEqual(2000);
    expect(first?.gates.tests.duration_ms).toBeLessThan(second?.gates.tests.duration_ms / 4);
  });

  it('runs the full suite every full_every iterations, skips without changes, and quotes each file as one argument', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      '.gitignore': '*.log\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 4 })}git:\n  commit: true\n${testsConfig([
        'command: echo full >> runs.log',
        'affected: sh args.sh {files}',
        'full_every: 3',
      ])}\n`,
      'args.sh': 'for a in "$@"; do printf "ARG<%s>\\n" "$a"; done >> args.log\necho --- >> args.log\n',
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        `    do: [{ write: { path: ${JSON.stringify(NASTY)}, content: "x\\n" } }]`,
        '  - when: { iteration: [2, 3] }',
        '    do: [{ write: { path: "plain-{{iteration}}.txt", content: "x\\n" } }]',
        '  - do: [{ print: "nothing to change" }]',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    const records = readRecords(dir);
    expect(records.map((x) => x.gates.tests?.scope ?? x.tests_skipped)).toEqual([
      'affected',
      'affected',
      'full',
      'affected: skipped, no changes',
    ]);
    expect(records[0]?.gates.tests.files).toEqual([NASTY]);
    expect(records[2]?.gates.tests.why).toBe('every 3 iterations (gates.tests.full_every)');
    expect(readFileSync(join(dir, 'args.log'), 'utf8')).toBe(
      `ARG<${NASTY}>\n---\nARG<${records[1]?.gates.tests.files[0]}>\n---\n`,
    );
    expect(readFileSync(join(dir, 'runs.log'), 'utf8')).toBe('full\n');
    expect(existsSync(join(dir, 'pwned')) || existsSync(join(dir, 'pwned2'))).toBe(false);
    const explain = await runRalph(['explain'], dir);
    expect(explain.stdout).toMatch(/gates: tests ✓ \(affected: 1 file\(s\), /);
    expect(explain.stdout).toContain('(full: every 3 iterations (gates.tests.full_every), ');
    expect(explain.stdout).toContain('gates: tests affected: skipped, no changes');
  });

  it('outside git, takes the changed files from the workspace walk', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 2 })}${testsConfig(['command: "false"', 'affected: echo {files}'])}\n`,
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do: [{ write: { path: src/new.txt, content: "x\\n" } }]',
        '  - do: [{ print: "nothing to change" }]',
      ].join('\n'),
    });
    expect((await runRalph(['run'], dir)).code).toBe(2);
    const [first, second] = readRecords(dir);
    expect(first?.gates.tests).toMatchObject({ scope: 'affected', files: ['src/new.txt'], passed: true });
    expect(second?.tests_skipped).toBe('affected: skipped, no changes');
  });
});
