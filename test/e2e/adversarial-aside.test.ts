import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { markedProcesses } from '../helpers/marked-processes.ts';
import {
  fakeConfig,
  type RunResult,
  readRecords,
  readState,
  runRalph,
  traceRunWrites,
} from '../helpers/workspace.ts';

// Issue 32, second red-team pass, holes 4 and 5: a scripted agent leaves something Ralph must set
// aside (a nested repository a rollback cannot rescue, a damaged own file whose "aside" names are
// taken) and the run must end with a clear verdict, the agent's data kept, never an internal error.

const ROLLBACK =
  'gates:\n  tests:\n    command: sh tests/check.sh\n  on_failure: rollback\ngit:\n  commit: true\n';

/** A committed project whose tests pass while src/app.ts says "good". */
function project(ralphYml: string, attack: string): string {
  return makeGitWorkspace({
    'PROMPT.md': 'work\n',
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'src/app.ts': 'good\n',
    'tests/check.sh': 'grep -q good src/app.ts\n',
    'ralph.yml': ralphYml,
    'fake-agent.yml': ['turns:', '  - do:', `      - run: ${JSON.stringify(attack)}`].join('\n'),
  });
}

/** Every run of a test: no stack trace or "bug in Ralph", nothing of the run left running. */
async function ralph(dir: string, args: string[]): Promise<RunResult> {
  const r = await runRalph(args, dir);
  const out = r.stdout + r.stderr;
  expect(out).not.toMatch(/\n\s+at /);
  expect(out).not.toMatch(/bug in Ralph|unexpected error|EISDIR/);
  expect(markedProcesses(dir)).toEqual([]);
  return r;
}

const NESTED = 'mkdir -p src/nested && (cd src/nested && git init -q';
const COMMITTED_GREEN = `${NESTED} && echo evil > evil.ts && git add . && git -c user.name=a -c user.email=a@a commit -qm x)`;
const EMPTY_GREEN = `${NESTED} && echo evil > evil.ts)`;
const COMMITTED = `${COMMITTED_GREEN} && echo bad > src/app.ts`;
const EMPTY = `${EMPTY_GREEN} && echo bad > src/app.ts`;

describe('a rollback moves a nested repository the agent created aside whole (hole 4)', () => {
  it.each([
    ['with a commit', COMMITTED],
    ['with no commit', EMPTY],
  ])('a nested repository %s is kept under .ralph/rescue-files and named', async (_, attack) => {
    const dir = project(`${fakeConfig({ max_iterations: 1 })}${ROLLBACK}`, attack);
    const first = await ralph(dir, ['run']);
    const runId = readState(dir).run_id as string;
    const aside = join('.ralph', 'rescue-files', runId, '1', 'src', 'nested');
    expect(first.stdout + first.stderr).toContain(`src/nested -> ${aside}`);
    expect(readFileSync(join(dir, aside, 'evil.ts'), 'utf8')).toBe('evil\n');
    expect(existsSync(join(dir, aside, '.git'))).toBe(true);
    // The tree is back at the green commit, clean.
    expect(existsSync(join(dir, 'src', 'nested'))).toBe(false);
    expect(readFileSync(join(dir, 'src', 'app.ts'), 'utf8')).toBe('good\n');
    expect(git(dir, 'status', '--porcelain').trim()).toBe('');
    expect(readRecords(dir)).toHaveLength(1);
    const show = await ralph(dir, ['rescue', 'show', '1']);
    expect(show.stdout).toContain(aside);
    const resumed = await ralph(dir, ['run', '--resume', '--max-iterations', '2']);
    expect(resumed.stdout + resumed.stderr).not.toContain('unexpected');
    expect(readFileSync(join(dir, aside, 'evil.ts'), 'utf8')).toBe('evil\n');
  });
});

describe('a rollback cut short with a nested repository in the tree is finished by --resume (hole 4)', () => {
  it('killed once the record is saved: --resume moves it aside and resets the tree', async () => {
    const config = `${fakeConfig({ max_iterations: 1 })}${ROLLBACK}`;
    const writes = await traceRunWrites(project(config, EMPTY));
    // The record's append: the rollback is saved with it, nothing set aside yet.
    const append = writes.find((w) => w.kind === 'durable' && w.path.endsWith('iterations.jsonl'));
    const dir = project(config, EMPTY);
    const killed = await runRalph(['run'], dir, { RALPH_FAULT_KILL_AFTER_WRITE: String(append?.n) });
    expect(killed.signal).toBe('SIGKILL');
    expect(readState(dir).rollback).toMatchObject({ iteration: 1 });
    expect(existsSync(join(dir, 'src/nested/evil.ts'))).toBe(true);
    const resumed = await ralph(dir, ['run', '--resume']);
    const runId = readState(dir).run_id as string;
    const aside = join('.ralph', 'rescue-files', runId, '1', 'src', 'nested');
    expect(resumed.stdout + resumed.stderr).toContain(`src/nested -> ${aside}`);
    expect(readFileSync(join(dir, aside, 'evil.ts'), 'utf8')).toBe('evil\n');
    expect(readState(dir).rollback).toBeNull();
    expect(git(dir, 'status', '--porcelain').trim()).toBe('');
  });
});

describe('an iteration whose gates pass with a nested repository is not committed (hole 4)', () => {
  it.each([
    ['with a commit', COMMITTED_GREEN],
    ['with no commit', EMPTY_GREEN],
  ])('a nested repository %s fails the iteration, named, and is moved aside', async (_, attack) => {
    const dir = project(`${fakeConfig({ max_iterations: 1 })}git:\n  commit: true\n`, attack);
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    await ralph(dir, ['run']);
    const [record] = readRecords(dir);
    expect(record?.verdict).toBe('failure');
    expect(record?.reason).toContain('nested git repository Ralph does not commit: src/nested');
    expect(record?.commit).toBeNull();
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    const runId = readState(dir).run_id as string;
    expect(readFileSync(join(dir, '.ralph/rescue-files', runId, '1/src/nested/evil.ts'), 'utf8')).toBe(
      'evil\n',
    );
    expect(git(dir, 'status', '--porcelain').trim()).toBe('');
  });
});

describe('a damaged own file is moved aside even when its aside names are taken (hole 5)', () => {
  it('tasks.jsonl made a directory with .damaged-1..3 taken fails the iteration, named', async () => {
    const attack =
      'mkdir -p .ralph/agent/tasks.jsonl .ralph/agent/tasks.jsonl.damaged-1/x .ralph/agent/tasks.jsonl.damaged-2/x .ralph/agent/tasks.jsonl.damaged-3/x; echo better > src/app.ts';
    const dir = project(`${fakeConfig({ max_iterations: 3 })}git:\n  commit: true\n`, attack);
    const r = await ralph(dir, ['run']);
    const records = readRecords(dir);
    expect(records.length).toBeGreaterThan(0);
    const first = JSON.stringify(records[0]);
    expect(first).toContain(
      '.ralph/agent/tasks.jsonl (a directory; moved to .ralph/agent/tasks.jsonl.damaged-1-2)',
    );
    expect(records[0]?.verdict).not.toBe('complete');
    // Nothing the agent planted was deleted.
    for (const n of [1, 2, 3])
      expect(existsSync(join(dir, `.ralph/agent/tasks.jsonl.damaged-${n}/x`))).toBe(true);
    expect(r.stdout + r.stderr).toContain('damaged');
  });
});
