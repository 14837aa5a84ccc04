import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type ParallelEvent, resolveRun, runParallel } from '../../src/index.ts';
import type { Coordination } from '../../src/parallel/coordination.ts';
import { mergeNext } from '../../src/parallel/merge-step.ts';
import { readyFromSource } from '../../src/parallel/task-source.ts';
import { ensureWorktree } from '../../src/parallel/worktrees.ts';
import type { ParallelTask } from '../../src/state/parallel-files.ts';
import { parallelPaths } from '../../src/state/parallel-files.ts';
import { git } from '../helpers/git-workspace.ts';
import { makeParallelWorkspace } from '../helpers/parallel-workspace.ts';

/** A fake-agent turn: when the prompt names TITLE, write FILE and finish. */
const writes = (title: string, file: string) =>
  `  - when: { prompt: "\\\\*\\\\*${title}\\\\*\\\\*" }\n    do:\n      - write: { path: ${file}, content: "${title}\\n" }\n      - print: LOOP_COMPLETE\n`;

const DESIGN =
  '# Design\n\n## Milestone 1: Base\n\n- [ ] One\n- [ ] Two\n\n## Milestone 2: More\n\n- [ ] Three\n';
const CHECKLIST = 'completion:\n  checklist: DESIGN.md\n';

// The checklist's contract (docs/guide/parallel.md): the next milestone waits until this one is
// merged. Marking a task done changes the source before its commit is made and the merge announced.
describe('parallel: the next milestone waits for the merges', { timeout: 120_000 }, () => {
  it('the source never shows the next milestone ready to the coordinator before the merge is announced', async () => {
    const dir = makeParallelWorkspace('turns: []\n', CHECKLIST, {
      'DESIGN.md': DESIGN.replace('[ ] One', '[x] One'),
    });
    const { config } = resolveRun({ cwd: dir });
    const [two] = readyFromSource(dir, config, 'checklist');
    if (two?.title !== 'Two') throw new Error(`expected Two ready, got ${JSON.stringify(two)}`);
    const { path } = await ensureWorktree(dir, two.id);
    writeFileSync(join(path, 'two.txt'), 'Two\n');
    git(path, 'add', 'two.txt');
    git(path, 'commit', '-qm', 'two');
    const task: ParallelTask = {
      ...two,
      state: 'queued',
      worktree: two.id,
      worker: 'w1',
      attempts: 0,
      merge_attempts: 0,
      runs: {},
    };
    const events: ParallelEvent[] = [];
    const c = {
      o: { workspace: dir, config, env: process.env },
      state: { id: 'par-test', target: 'main', workers: 1, tasks: { [two.id]: task }, queue: [two.id] },
      kind: 'checklist',
      setup: { repo: dir, workspace: dir, paths: parallelPaths(dir), config, env: process.env },
      active: new Map(),
      ended: new Set(),
      stopping: null,
      markingDone: false,
      forge: undefined,
      gitConfig: undefined,
      persist: () => {},
      emit: (e: ParallelEvent) => events.push(e),
    } as unknown as Coordination;
    // What the coordinator's startNext would see on every turn of the event loop while the merge runs.
    let merging = true;
    let looks = 0;
    const early: string[] = [];
    const watcher = (async () => {
      while (merging) {
        looks++;
        const announced = events.some((e) => e.type === 'merge.merged');
        const three = readyFromSource(dir, config, 'checklist').some((t) => t.title === 'Three');
        if (three && !announced && !c.markingDone)
          early.push(`look ${looks}: Three ready, Two not announced merged`);
        await turn();
      }
    })();
    await mergeNext(c, two.id);
    merging = false;
    await watcher;
    expect(events.map((e) => e.type)).toContain('merge.merged');
    expect(readFileSync(join(dir, 'DESIGN.md'), 'utf8')).toBe(
      DESIGN.replaceAll('[ ] One', '[x] One').replace('[ ] Two', '[x] Two'),
    );
    expect(looks).toBeGreaterThan(1);
    expect(early).toEqual([]);
  });

  it('a run: a task of the next milestone starts only after every task of this one is announced merged', async () => {
    const dir = makeParallelWorkspace(
      `turns:\n${['One', 'Two', 'Three'].map((t) => writes(t, `${t.toLowerCase()}.txt`)).join('')}`,
      CHECKLIST,
      { 'DESIGN.md': DESIGN },
    );
    const events: ParallelEvent[] = [];
    // The coordinator looks for ready tasks every millisecond, so also while a merge marks its task done.
    const result = await runParallel({
      workspace: dir,
      ...resolveRun({ cwd: dir }),
      workers: 3,
      pollMs: 1,
      reporters: [
        {
          onEvent: (e) => {
            if (e.type !== 'workers.progress') events.push(e);
          },
        },
      ],
    });
    expect(result, result.message).toMatchObject({ exitCode: 0, reason: 'completed' });
    expect(readFileSync(join(dir, 'DESIGN.md'), 'utf8')).toBe(DESIGN.replaceAll('[ ]', '[x]'));
    const at = (type: ParallelEvent['type'], title: string) =>
      events.findIndex((e) => e.type === type && 'title' in e && e.title === title);
    const startedThree = at('worker.started', 'Three');
    expect(startedThree).toBeGreaterThan(0);
    expect(
      [at('merge.merged', 'One'), at('merge.merged', 'Two')].every((i) => i >= 0 && i < startedThree),
    ).toBe(true);
  });
});
