import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/git-workspace.ts';
import {
  makeWorkspace,
  ROOT,
  readRecords,
  readState,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

const STATE = `# Goal
A correct add function.

# Current task
Make src/add.txt say "correct".

# Constraints
- Never weaken the test.

# Creative tasks
- [ ] Storyboard for the launch video in storyboards/launch.md

# History
`;

/** A full report (every required section), written by the scripted agent. */
const report = (status: string) =>
  `      - write:\n          path: loop/last_output.md\n          content: "# Iteration {{iteration}} — 2026-11-21\\n\\n## Status\\n${status}\\n\\n## Actions\\nworked\\n\\n## Changes\\nsrc\\n\\n## Tests\\nsh test.sh\\n\\n## Current state\\nok\\n\\n## Next\\nmore\\n\\n## Notes\\nnone\\n"`;

function tddProject(script: string, tdd = '{}', extra: Record<string, string> = {}): string {
  const dir = makeWorkspace({
    'loop/state.md': STATE,
    'loop/agent-prompt.md': 'You are one iteration of a TDD loop. Follow loop/state.md.\n',
    'src/add.txt': 'wrong\n',
    'test.sh':
      '#!/bin/sh\nif grep -q correct src/add.txt; then echo "1 passed"; else echo "FAIL add > returns the sum"; exit 1; fi\n',
    'ralph.yml': readFileSync(join(ROOT, 'presets', 'tdd', 'ralph.yml'), 'utf8')
      .replace('command: npm test', 'command: sh test.sh')
      .replace('tdd: {}', `tdd: ${tdd}`)
      .replace('backend: claude', 'backend: fake\n  fake_script: fake-agent.yml'),
    'fake-agent.yml': script,
    ...extra,
  });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Ralph Test');
  git(dir, 'config', 'user.email', 'ralph@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

const RED_GREEN_CREATIVE = `turns:
  - name: first engineering step (tests not run yet)
    when: { hat: engineering, iteration: 1 }
    do:
${report('ENGINEERING')}
  - name: fix the failing test, reading loop/ci.md
    when: { hat: engineering, prompt: "tdd.engineering" }
    do:
      - run: "grep -q 'FAIL add' loop/ci.md && echo correct > src/add.txt && sed -i 's/^Make src.*/none/' loop/state.md"
${report('ENGINEERING')}
  - name: creative work on green
    when: { hat: creative }
    do:
      - write: { path: storyboards/launch.md, content: "# Launch\\nScene 1\\n" }
      - run: "sed -i 's/- \\\\[ \\\\] Storyboard/- [x] Storyboard/' loop/state.md"
${report('CREATIVE')}
  - name: nothing left
    do:
${report('ENGINEERING')}
      - print: "All green, nothing left."
      - print: LOOP_COMPLETE
`;

describe('TDD state loop (seed 004)', () => {
  it('red → engineering, green with creative tasks → creative, then completes; history, ci.md and routing recorded', async () => {
    const dir = tddProject(RED_GREEN_CREATIVE);
    const r = await runRalph(['run'], dir);
    expect(r.stderr).not.toContain('unexpected');
    expect(r.code).toBe(0);
    const records = readRecords(dir);
    expect(records.map((x) => x.hat)).toEqual(['engineering', 'engineering', 'creative', null]);
    expect(records.map((x) => x.gates.tests?.passed)).toEqual([false, true, true, true]);
    // Creative work never starts on red tests: every creative iteration follows a green run.
    records.forEach((x, i) => {
      if (x.hat === 'creative') expect(records[i - 1]?.gates.tests?.passed).toBe(true);
    });
    expect(readFileSync(join(dir, 'loop', 'ci.md'), 'utf8')).toContain('Status: PASSED');
    const state = readFileSync(join(dir, 'loop', 'state.md'), 'utf8');
    expect(state.match(/^- Iteration \d+ \(\d{4}-\d\d-\d\d\) — /gm)).toHaveLength(4);
    expect(state).toContain('# Goal\nA correct add function.');
    expect(existsSync(join(dir, 'storyboards', 'launch.md'))).toBe(true);
    const topics = JSON.parse((await runRalph(['events', '--format', 'json'], dir)).stdout).map(
      (e: { topic: string }) => e.topic,
    );
    expect(topics).toEqual(
      expect.arrayContaining(['tests.failed', 'tests.passed', 'tdd.engineering', 'tdd.creative']),
    );
  });

  it('reports missing report sections to the next iteration and counts repeats as failures', async () => {
    const dir = tddProject(
      `turns:\n  - do:\n      - run: 'cp "$RALPH_FAKE_PROMPT" prompt-{{iteration}}.md'\n      - write: { path: loop/last_output.md, content: "# Iteration {{iteration}}\\n\\n## Status\\nENGINEERING\\n" }\n`,
      '{ report_misses_before_failure: 2 }',
    );
    writeFileSync(
      join(dir, 'ralph.yml'),
      readFileSync(join(dir, 'ralph.yml'), 'utf8').replace(
        'max_iterations: 100',
        'max_iterations: 100\n  max_consecutive_failures: 2',
      ),
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'consecutive_failures', iterations: 3 });
    const records = readRecords(dir);
    expect(records.map((x) => x.verdict)).toEqual(['success', 'failure', 'failure']);
    expect(records[0]?.report_missing).toEqual([
      'Actions',
      'Changes',
      'Tests',
      'Current state',
      'Next',
      'Notes',
    ]);
    expect(readFileSync(join(dir, 'prompt-2.md'), 'utf8')).toContain(
      '## Report check\nloop/last_output.md is missing required section(s): Actions',
    );
  });

  it('stops as stuck when the same tests fail iteration after iteration', async () => {
    const dir = tddProject(`turns:\n  - do:\n${report('ENGINEERING')}\n`, '{ stuck_iterations: 3 }');
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    const state = readState(dir);
    expect(state).toMatchObject({ stop_reason: 'stuck', iterations: 3 });
    expect(state.stop_message).toContain('add > returns the sum');
  });

  it('restores a corrupted loop/state.md from the last good copy, with a warning', async () => {
    const dir = tddProject(
      `turns:\n  - when: { iteration: 1 }\n    do:\n      - write: { path: loop/state.md, content: "oops, overwritten\\n" }\n${report('ENGINEERING')}\n  - do:\n      - run: "grep -q '^# Goal' loop/state.md || echo LOST >> lost.txt"\n${report('ENGINEERING')}\n`,
    );
    writeFileSync(
      join(dir, 'ralph.yml'),
      readFileSync(join(dir, 'ralph.yml'), 'utf8').replace('max_iterations: 100', 'max_iterations: 2'),
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('loop/state.md was corrupted');
    expect(readFileSync(join(dir, 'loop', 'state.md'), 'utf8')).toContain('A correct add function.');
    expect(existsSync(join(dir, 'lost.txt'))).toBe(false);
    // What the restore replaced was someone's writing: it is kept, and the warning says where.
    const kept = /what it held is kept in (\.ralph\/tdd\/state\.replaced-[0-9a-f]+\.md)/.exec(r.stderr)?.[1];
    expect(kept, r.stderr).toBeDefined();
    expect(readFileSync(join(dir, kept ?? ''), 'utf8')).toBe('oops, overwritten\n');
  });

  it('records changes outside tdd.allowed_paths as scope violations', async () => {
    const dir = tddProject(
      `turns:\n  - do:\n      - write: { path: docs/notes.md, content: x }\n      - write: { path: src/more.txt, content: y }\n${report('ENGINEERING')}\n`,
      '{ allowed_paths: [src] }',
    );
    await runRalph(['run', '--max-iterations', '1'], dir);
    expect(readRecords(dir)[0]?.scope_violations).toEqual(['docs/notes.md']);
  });

  it('refuses to start with an unfilled state file, naming the sections', async () => {
    const dir = tddProject(`turns:\n  - do: [{ print: x }]\n`);
    writeFileSync(join(dir, 'loop', 'state.md'), '# Goal\n\n# Current task\n\n# Constraints\n');
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir).stop_reason).toBe('tdd_state');
    expect(readState(dir).stop_message).toContain('# Goal');
  });

  it('ralph init --preset tdd, then a resumed run after kill -9', async () => {
    const dir = makeWorkspace({});
    execFileSync(
      process.execPath,
      [join(ROOT, 'bin', 'ralph'), 'init', '--preset', 'tdd', '--backend', 'fake'],
      { cwd: dir },
    );
    writeFileSync(join(dir, 'loop', 'state.md'), STATE);
    writeFileSync(join(dir, 'src.txt'), 'wrong\n');
    writeFileSync(
      join(dir, 'fake-agent.yml'),
      `turns:\n  - when: { iteration: 2, file_missing: go.flag }\n    do: [{ run: "echo $PPID > agent.pid" }, { hang: true }]\n  - do:\n${report('ENGINEERING')}\n`,
    );
    const args = [
      'run',
      '--set',
      'cli.fake_script=fake-agent.yml',
      '--set',
      'gates.tests.command=grep -q correct src.txt',
      '--max-iterations',
      '3',
    ];
    const first = startRalph(args, dir);
    await waitFor(() => existsSync(join(dir, 'agent.pid')), 15_000, 'iteration 2');
    first.child.kill('SIGKILL');
    await first.done;
    writeFileSync(join(dir, 'go.flag'), '');
    const r = await runRalph([...args, '--resume'], dir);
    expect(r.code).toBe(2);
    expect(readRecords(dir).map((x) => x.iteration)).toEqual([1, 2, 3]);
    expect(readFileSync(join(dir, 'loop', 'state.md'), 'utf8').match(/^- Iteration \d/gm)).toHaveLength(3);
  });
});

describe('TDD report archive', () => {
  it('archives the gathered reports every archive_after iterations', async () => {
    const dir = tddProject(`turns:\n  - do:\n${report('ENGINEERING')}\n`, '{ archive_after: 2 }');
    await runRalph(['run', '--max-iterations', '4'], dir);
    const archive = join(dir, 'loop', 'archive');
    expect(readFileSync(join(archive, 'last_output-iteration-0002.md'), 'utf8')).toContain('# Iteration 1');
    const second = readFileSync(join(archive, 'last_output-iteration-0004.md'), 'utf8');
    expect(second).toContain('# Iteration 3');
    expect(second).toContain('# Iteration 4');
    expect(second).not.toContain('# Iteration 2 ');
  });
});
