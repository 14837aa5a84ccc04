import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { makeGitWorkspace } from '../helpers/git-workspace.ts';
import { markedProcesses } from '../helpers/marked-processes.ts';
import { fakeConfig, type RunResult, readRecords, readState, runRalph } from '../helpers/workspace.ts';

// Issue 32, holes H5 and H6: a scripted agent tries to make `ralph run --resume` finish what the
// gates refused (a marker or checklist it wrote while the tests fail), or to make Ralph stop after
// its turn so that a resumed run never judges the denied file it changed.

/** A committed project: `files` beside PROMPT.md, Ralph's runtime ignores and tests/check.sh. */
function project(ralphYml: string, agent: string[], files: Record<string, string> = {}): string {
  return makeGitWorkspace({
    'PROMPT.md': 'work\n',
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'tests/check.sh': 'test -f never-exists\n',
    'ralph.yml': ralphYml,
    'fake-agent.yml': ['turns:', ...agent].join('\n'),
    ...files,
  });
}

const TESTS = 'gates:\n  tests:\n    command: sh tests/check.sh\ngit:\n  commit: true\n';
const MARKER = 'completion:\n  marker: { file: STATUS.md, text: ALL DONE }\n';
const CHECKLIST = 'completion:\n  checklist: DESIGN.md\n  condition: all_tasks\n';
const DESIGN = '# Design\n\n## Milestone 1: Only\n\n- [ ] one\n- [ ] two\n';

/** Every run of a test: no stack trace, nothing of the run left running. */
async function ralph(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  const r = await runRalph(args, dir, env);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(markedProcesses(dir)).toEqual([]);
  return r;
}

describe('a resumed run completes only when every completion condition holds (H5)', () => {
  it.each([
    ['the completion marker', MARKER, 'echo ALL DONE > STATUS.md', {}],
    ['the checklist', CHECKLIST, 'sed -i "s/- \\[ \\]/- [x]/" DESIGN.md', { 'DESIGN.md': DESIGN }],
  ])(
    '%s written by the agent while the tests fail is not "completed" on --resume',
    async (_, completion, attack, files) => {
      const dir = project(
        `${fakeConfig({ max_iterations: 1 })}${completion}${TESTS}`,
        ['  - do:', `      - run: ${JSON.stringify(attack)}`, '      - print: LOOP_COMPLETE'],
        files,
      );
      const first = await ralph(dir, ['run']);
      expect(first.stdout + first.stderr).toContain('the tests are failing');
      const resumed = await ralph(dir, ['run', '--resume', '--max-iterations', '3']);
      const out = resumed.stdout + resumed.stderr;
      expect(out).not.toMatch(/completed —/);
      expect(resumed.code).not.toBe(0);
      expect(readState(dir).status).not.toBe('completed');
      // The resumed iterations ran, each refused for the same reason.
      const records = readRecords(dir);
      expect(records.length).toBeGreaterThan(1);
      for (const record of records) expect(record.verdict).not.toBe('complete');
    },
  );

  it('a project already complete with green tests is "nothing to do" without an agent', async () => {
    const dir = project(
      `${fakeConfig({ max_iterations: 3 })}${MARKER}${TESTS}`,
      ['  - do:', '      - write: { path: agent-ran, content: "yes\\n" }', '      - print: LOOP_COMPLETE'],
      { 'STATUS.md': 'ALL DONE\n', 'tests/check.sh': 'exit 0\n' },
    );
    const r = await ralph(dir, ['run']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toContain('STATUS.md already contains ALL DONE: nothing to do');
    expect(existsSync(join(dir, 'agent-ran'))).toBe(false);
    expect(readState(dir).status).toBe('completed');
  });

  it('a project already "complete" whose tests fail starts iterating, the agent told why', async () => {
    const dir = project(
      `${fakeConfig({ max_iterations: 1 })}${MARKER}${TESTS}`,
      ['  - do:', '      - save_prompt: dist/p1.md', '      - print: LOOP_COMPLETE'],
      { 'STATUS.md': 'ALL DONE\n', '.gitignore': 'dist/\n' },
    );
    const r = await ralph(dir, ['run']);
    expect(r.stdout + r.stderr).not.toContain('nothing to do');
    expect(readFileSync(join(dir, 'dist', 'p1.md'), 'utf8')).toContain('the tests are failing');
    expect(readRecords(dir)).toHaveLength(1);
    expect(readState(dir).status).not.toBe('completed');
  });
});

/** H6's project: rules deny the git-ignored `.env`; the first turn appends to it, `attack` after. */
function leakProject(attack: string): string {
  const dir = project(
    `${fakeConfig({ max_iterations: 3 })}rules:\n  deny: [".env*"]\ngit:\n  commit: true\n`,
    [
      '  - when: { file_missing: dist/tried }',
      '    do:',
      `      - run: ${JSON.stringify(`mkdir -p dist; touch dist/tried; echo LEAKED=1 >> .env${attack}`)}`,
      '      - print: LOOP_COMPLETE',
      '  - do:',
      '      - write: { path: src.txt, content: "ok\\n" }',
      '      - print: LOOP_COMPLETE',
    ],
    { '.gitignore': '.env*\ndist/\n' },
  );
  writeFileSync(join(dir, '.env'), 'API_KEY=original\n');
  return dir;
}

describe("damage to Ralph's own files after the agent's turn is judged, never absorbed (H6)", () => {
  it.each([
    [
      'a directory for tasks.jsonl',
      'rm -f .ralph/agent/tasks.jsonl; mkdir -p .ralph/agent/tasks.jsonl',
      '.ralph/agent/tasks.jsonl (a directory; moved to .ralph/agent/tasks.jsonl.damaged-1)',
    ],
    [
      'a dangling link for memories.md',
      'mkdir -p .ralph/agent; rm -f .ralph/agent/memories.md; ln -s /nonexistent/m .ralph/agent/memories.md',
      '.ralph/agent/memories.md (a link to nowhere; moved to .ralph/agent/memories.md.damaged-1)',
    ],
    [
      'a directory for the events file',
      'f=$(cat .ralph/current-events); rm -f "$f"; mkdir -p "$f"',
      '.jsonl (a directory; moved to .ralph/events-',
    ],
  ])(
    '%s fails that iteration, named in its record; the .env change is still a rule_violation',
    async (_, damage, named) => {
      const dir = leakProject(`; ${damage}`);
      const r = await ralph(dir, ['run']);
      const [first, second] = readRecords(dir);
      expect(first, r.stdout + r.stderr).toMatchObject({ iteration: 1, verdict: 'failure', commit: null });
      expect(first?.reason).toContain(named);
      // Judged from the first iteration's start: the .env change is not absorbed.
      expect(second).toMatchObject({ verdict: 'rule_violation', commit: null });
      expect(second?.reason).toContain('.env (inside rules.deny)');
      expect(r.stdout + r.stderr).not.toMatch(/EISDIR|ENOENT/);
      expect(readState(dir).status).not.toBe('completed');
    },
  );
});
