import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { upgradeRollback } from '../../../../src/state/loop-state/rollback-upgrade.ts';
import { readLoopState } from '../../../../src/state/loop-state.ts';

// A run an older Ralph left mid-rollback kept the workspace's part in `rollback` ({ to, why, rescued })
// and the repositories' in `repos_rollback` ({ repos, done }); --resume must still finish both.

const REF = 'refs/ralph/rescue/r1/3';

/** A state.json as an older Ralph wrote it, with the given rollback fields. */
function oldState(fields: Record<string, unknown>): string {
  return JSON.stringify({
    version: 1,
    run_id: 'r1',
    status: 'interrupted',
    started_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    pid: 4242,
    workspace: '/w',
    backend: 'fake',
    max_iterations: 5,
    iterations: 3,
    current: null,
    consecutive_failures: 1,
    cost_usd: 0,
    tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
    elapsed_ms: 10,
    events_file: '.ralph/events.jsonl',
    log_file: '.ralph/ralph.log',
    last_green: 'aaaa',
    ...fields,
  });
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function read(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-upgrade-'));
  dirs.push(dir);
  const path = join(dir, 'state.json');
  writeFileSync(path, text);
  return readLoopState(path)!;
}

const workspacePart = { iteration: 3, ref: REF, to: 'aaaa', why: 'the tests gate failed', rescued: true };
const reposPart = {
  iteration: 3,
  ref: REF,
  why: 'a gate failed (repository api: …)',
  repos: [
    { name: 'api', to: 'bbbb' },
    { name: 'web', to: 'cccc' },
  ],
  done: ['api'],
};

describe("an older Ralph's rollback in state.json", () => {
  it("reads the workspace's `rollback` as a list of one", () => {
    const state = read(oldState({ rollback: workspacePart }));
    expect(state.rollback).toEqual({
      iteration: 3,
      ref: REF,
      trees: [{ repo: null, to: 'aaaa', why: 'the tests gate failed', rescued: true }],
    });
  });

  it('reads `repos_rollback` as the repositories not yet done, and drops the old field', () => {
    const state = read(oldState({ rollback: null, repos_rollback: reposPart }));
    expect(state.rollback).toEqual({
      iteration: 3,
      ref: REF,
      trees: [{ repo: 'web', to: 'cccc', why: 'a gate failed (repository api: …)', rescued: false }],
    });
    expect(state).not.toHaveProperty('repos_rollback');
  });

  it("joins both, the workspace's part first", () => {
    const state = read(oldState({ rollback: workspacePart, repos_rollback: reposPart }));
    expect(state.rollback?.trees.map((t) => t.repo)).toEqual([null, 'web']);
  });

  it('reads none when both are null, or every repository was done', () => {
    expect(read(oldState({ rollback: null, repos_rollback: null })).rollback).toBeNull();
    const done = { ...reposPart, done: ['api', 'web'] };
    expect(read(oldState({ repos_rollback: done })).rollback).toBeNull();
  });

  it('names what is wrong in an old rollback it cannot read, as for any damaged state', () => {
    expect(() => read(oldState({ rollback: { ...workspacePart, to: 7 } }))).toThrow(
      /state\.json is damaged .*rollback.*ralph run --fresh/,
    );
  });

  it("leaves today's state as it is", () => {
    const tree = fc.record({
      repo: fc.option(fc.string({ minLength: 1 }), { nil: null }),
      to: fc.string({ minLength: 1 }),
      why: fc.string(),
      rescued: fc.boolean(),
    });
    const current = fc.option(
      fc.record({
        iteration: fc.integer({ min: 1 }),
        ref: fc.string({ minLength: 1 }),
        trees: fc.array(tree),
      }),
      { nil: null },
    );
    fc.assert(
      fc.property(fc.option(current, { nil: undefined }), (rollback) => {
        const raw = rollback === undefined ? { run_id: 'r1' } : { run_id: 'r1', rollback };
        expect(upgradeRollback(raw)).toBe(raw);
      }),
    );
  });
});
