import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RalphError } from '../../../../src/errors.ts';
import {
  parsePrd,
  readPrdTasks,
  setStoryPasses,
  storyTask,
} from '../../../../src/state/tasks/prd-stories.ts';
import { readyTasks } from '../../../../src/state/tasks/task.ts';
import { isStory, prdFileOf, readAllTasks } from '../../../../src/state/tasks/task-list.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

/** A prd.json in snarktank/ralph's layout. */
const prd = (stories: Array<{ id: string; priority: number; passes: boolean }>) =>
  `${JSON.stringify(
    {
      project: 'Shop',
      branchName: 'ralph/cart',
      description: 'A cart',
      userStories: stories.map((s) => ({
        id: s.id,
        title: `Story ${s.id}`,
        description: `As a user I want ${s.id}`,
        acceptanceCriteria: ['Typecheck passes', `${s.id} works`],
        priority: s.priority,
        passes: s.passes,
        notes: '',
      })),
    },
    null,
    2,
  )}\n`;

describe('parsePrd and storyTask', () => {
  it('reads each story: passes is closed, the rest open, the criteria in the description', () => {
    const stories = parsePrd(
      prd([
        { id: 'US-001', priority: 1, passes: true },
        { id: 'US-002', priority: 2, passes: false },
      ]),
      'prd.json',
    );
    const tasks = stories.map(storyTask);
    expect(tasks.map((t) => [t.id, t.status, t.priority])).toEqual([
      ['US-001', 'closed', 1],
      ['US-002', 'open', 2],
    ]);
    expect(tasks[1]?.description).toBe(
      'As a user I want US-002\n\nAcceptance criteria:\n- Typecheck passes\n- US-002 works',
    );
  });

  it("ralph-tui's dependsOn blocks a story until those pass", () => {
    const text = JSON.stringify({
      userStories: [
        { id: 'A', title: 'a', passes: false, priority: 2 },
        { id: 'B', title: 'b', passes: false, priority: 1, dependsOn: ['A'] },
      ],
    });
    const tasks = parsePrd(text, 'prd.json').map(storyTask);
    expect(readyTasks(tasks).map((t) => t.id)).toEqual(['A']);
  });

  it.each([
    ['not JSON', '{', /prd\.json: not JSON/],
    ['no userStories', '{"stories": []}', /no "userStories" list/],
    ['a story without id', '{"userStories": [{"title": "x"}]}', /userStories\[0\] has no "id"/],
    ['a story without title', '{"userStories": [{"id": "US-1"}]}', /story US-1 has no "title"/],
    [
      'the same id twice',
      '{"userStories": [{"id": "a", "title": "x"}, {"id": "a", "title": "y"}]}',
      /two stories have the id a/,
    ],
  ])('%s: an error naming the file and what a prd.json holds', (_name, text, message) => {
    const error = (() => {
      try {
        parsePrd(text, 'prd.json');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RalphError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('tasks.source: file');
  });

  it('property: the ready story is the open one of the lowest priority; all passing leaves none open', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            id: fc.stringMatching(/^US-\d{1,3}$/),
            priority: fc.integer({ min: 1, max: 9 }),
            passes: fc.boolean(),
          }),
          {
            selector: (s) => s.id,
            maxLength: 8,
          },
        ),
        (stories) => {
          const tasks = parsePrd(prd(stories), 'prd.json').map(storyTask);
          const open = stories.filter((s) => !s.passes);
          expect(tasks.filter((t) => t.status === 'open').length).toBe(open.length);
          const first = readyTasks(tasks)[0];
          if (open.length === 0) expect(first).toBeUndefined();
          else expect(first?.priority).toBe(Math.min(...open.map((s) => s.priority)));
        },
      ),
    );
  });
});

describe('a prd.json on disk', () => {
  it('is read fresh after the agent edits it, merged after the tasks file', () => {
    const dir = makeWorkspace();
    const file = join(dir, 'prd.json');
    writeFileSync(file, prd([{ id: 'US-001', priority: 1, passes: false }]));
    const files = { tasks: join(dir, '.ralph', 'agent', 'tasks.jsonl'), prd: file };
    expect(readAllTasks(files).map((t) => t.status)).toEqual(['open']);
    writeFileSync(file, prd([{ id: 'US-001', priority: 1, passes: true }]).replace('"Shop"', '"Shop!"'));
    expect(readAllTasks(files).map((t) => t.status)).toEqual(['closed']);
    expect(isStory(files, 'US-001')).toBe(true);
    expect(isStory(files, 'task-00000000')).toBe(false);
  });

  it('setStoryPasses flips one story and keeps every other key of the document', () => {
    const dir = makeWorkspace();
    const file = join(dir, 'prd.json');
    const before = prd([
      { id: 'US-001', priority: 1, passes: false },
      { id: 'US-002', priority: 2, passes: false },
    ]);
    writeFileSync(file, before);
    expect(setStoryPasses(file, 'US-002', true).status).toBe('closed');
    expect(readFileSync(file, 'utf8')).toBe(
      before.replace(/("passes": )false(,\n\s+"notes": ""\n\s+}\n\s+\]\n)/, '$1true$2'),
    );
    expect(readPrdTasks(file).map((t) => t.status)).toEqual(['open', 'closed']);
    expect(setStoryPasses(file, 'US-002', false).status).toBe('open');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(() => setStoryPasses(file, 'US-404', true)).toThrow(/no task "US-404"/);
  });

  it('a missing prd.json says what to do', () => {
    const dir = makeWorkspace();
    expect(() => readPrdTasks(join(dir, 'prd.json'))).toThrow(
      /prd\.json is missing: tasks\.source is prd\.json; create it/,
    );
  });

  it('prdFileOf: only for tasks.source prd.json, tasks.prd relative to the workspace', () => {
    expect(prdFileOf({ source: 'file' }, '/w')).toBeUndefined();
    expect(prdFileOf({ source: 'prd.json' }, '/w')).toBe('/w/prd.json');
    expect(prdFileOf({ source: 'prd.json', prd: 'scripts/ralph/prd.json' }, '/w')).toBe(
      '/w/scripts/ralph/prd.json',
    );
  });
});
