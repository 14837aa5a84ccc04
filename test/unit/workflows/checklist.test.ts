import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';
import { PRESETS, presetFile } from '../../../src/config/presets.ts';
import {
  allTasksComplete,
  type Checklist,
  checklistComplete,
  checklistContext,
  currentMilestone,
  IMPLICIT_MILESTONE,
  iterationMarker,
  milestoneComplete,
  nextUncheckedTask,
  parseChecklist,
  progress,
  recentJournalEntries,
} from '../../../src/workflows/checklist.ts';

// Words start with a letter, so generated text never reads as `Milestone <n>`.
const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,7}$/);
const phrase = fc.array(word, { minLength: 1, maxLength: 4 }).map((ws) => ws.join(' '));

const genTask = fc.record({
  text: phrase,
  done: fc.boolean(),
  bullet: fc.constantFrom('-', '*', '+', '1.'),
  indent: fc.constantFrom('', '  ', '    '),
  check: fc.constantFrom('x', 'X'),
});
const genGroup = fc.record({ title: fc.option(phrase), tasks: fc.array(genTask, { maxLength: 4 }) });
const genMilestone = fc.record({
  title: phrase,
  level: fc.integer({ min: 2, max: 4 }),
  sep: fc.constantFrom(':', ' —', ' -', ' –'),
  prefix: fc.constantFrom('', '4.1 '),
  groups: fc.array(genGroup, { maxLength: 3 }),
  fence: fc.option(fc.constantFrom('```', '~~~', '````')),
});
const genDoc = fc.record({
  milestones: fc.array(genMilestone, { minLength: 1, maxLength: 5 }),
  preambleTask: fc.boolean(),
  appendixTask: fc.boolean(),
});
type GenDoc = typeof genDoc extends fc.Arbitrary<infer T> ? T : never;
interface Expected {
  title: string;
  tasks: { text: string; done: boolean; group: string | null }[];
}

/** Renders a generated design document, with decoys that must not parse, and what it holds. */
function render(doc: GenDoc): { markdown: string; expected: Expected[] } {
  const lines = ['# Project', '', 'Intro text.', ''];
  if (doc.preambleTask) lines.push('- [ ] a task before any milestone', '');
  const expected: Expected[] = [];
  doc.milestones.forEach((m, i) => {
    lines.push(`${'#'.repeat(m.level)} ${m.prefix}Milestone ${i + 1}${m.sep} ${m.title}`, '');
    const e: Expected = { title: m.title, tasks: [] };
    let group: string | null = null;
    m.groups.forEach((g, gi) => {
      if (g.title !== null) {
        lines.push(`${'#'.repeat(m.level + 1)} ${g.title}`, '');
        group = g.title;
      }
      for (const t of g.tasks) {
        lines.push(`${t.indent}${t.bullet} [${t.done ? t.check : ' '}] ${t.text}`);
        e.tasks.push({ text: t.text, done: t.done, group });
      }
      if (gi === 0 && m.fence) {
        const inner = m.fence === '````' ? ['```', '- [ ] inside a nested fence'] : [];
        lines.push('', m.fence, '- [ ] fake task in code', ...inner, '## Milestone 99: Fake', m.fence);
        lines.push('<!-- - [ ] hidden in a comment -->', '<!--', '* [x] hidden too', '-->');
      }
      lines.push('');
    });
    expected.push(e);
  });
  if (doc.appendixTask) lines.push('## Appendix', '', '- [ ] not part of the plan');
  return { markdown: lines.join('\n'), expected };
}

const shape = (c: Checklist): Expected[] =>
  c.milestones.map((m) => ({
    title: m.title,
    tasks: m.tasks.map(({ text, done, group }) => ({ text, done, group })),
  }));

describe('parseChecklist (properties)', () => {
  it('round-trips milestones, tasks, check state and groups, ignoring code, comments and strays', () => {
    fc.assert(
      fc.property(genDoc, (doc) => {
        const { markdown, expected } = render(doc);
        const c = parseChecklist(markdown);
        expect(shape(c)).toEqual(expected);
        expect(c.milestones.map((m) => m.number)).toEqual(expected.map((_, i) => i + 1));
        const source = markdown.split('\n');
        for (const t of c.milestones.flatMap((m) => m.tasks)) {
          expect(source[t.line - 1]).toContain(`] ${t.text}`);
        }
      }),
    );
  });

  it('allTasksComplete ⇔ at least one task and every generated task checked', () => {
    fc.assert(
      fc.property(genDoc, (doc) => {
        const { markdown, expected } = render(doc);
        const tasks = expected.flatMap((m) => m.tasks);
        const c = parseChecklist(markdown);
        expect(allTasksComplete(c)).toBe(tasks.length > 0 && tasks.every((t) => t.done));
        const verdict = checklistComplete(c, 'all_tasks', null);
        expect(verdict.complete).toBe(allTasksComplete(c));
        expect(verdict.empty).toBe(tasks.length === 0);
      }),
    );
  });

  it('currentMilestone is the first with an unchecked task; nextUncheckedTask is its first unchecked one', () => {
    fc.assert(
      fc.property(genDoc, (doc) => {
        const { markdown, expected } = render(doc);
        const c = parseChecklist(markdown);
        const index = expected.findIndex((m) => m.tasks.some((t) => !t.done));
        const current = currentMilestone(c);
        expect(current).toBe(index < 0 ? null : c.milestones[index]);
        const next = nextUncheckedTask(c);
        if (current === null) expect(next).toBeNull();
        else {
          expect(current.tasks).toContain(next);
          expect(next).toBe(current.tasks.find((t) => !t.done));
        }
        expect(milestoneComplete(c)).toBe(allTasksComplete(c));
      }),
    );
  });

  it('progress counts add up', () => {
    fc.assert(
      fc.property(genDoc, (doc) => {
        const { markdown, expected } = render(doc);
        const c = parseChecklist(markdown);
        const p = progress(c);
        const tasks = expected.flatMap((m) => m.tasks);
        expect(p.tasksTotal).toBe(tasks.length);
        expect(p.tasksDone).toBe(tasks.filter((t) => t.done).length);
        expect(p.milestonesTotal).toBe(expected.length);
        expect(p.milestonesDone).toBe(expected.filter((m) => m.tasks.every((t) => t.done)).length);
        expect(p.milestonesDone === p.milestonesTotal).toBe(currentMilestone(c) === null);
        const current = currentMilestone(c);
        expect(p.milestone).toBe(current?.title ?? null);
        expect(p.milestoneTotal).toBe(current?.tasks.length ?? 0);
        expect(p.milestoneDone).toBe(current?.tasks.filter((t) => t.done).length ?? 0);
        expect(p.milestoneDone).toBeLessThan(Math.max(1, p.milestoneTotal));
      }),
    );
  });

  it('the milestone condition completes with the start milestone, whatever later ones hold', () => {
    fc.assert(
      fc.property(genDoc, (doc) => {
        const { markdown, expected } = render(doc);
        const c = parseChecklist(markdown);
        for (const m of expected) {
          const v = checklistComplete(c, 'milestone', m.title);
          // Titles may repeat; the first milestone with that title is the one meant.
          const first = expected.find((x) => x.title === m.title) as Expected;
          const tasks = expected.flatMap((x) => x.tasks);
          expect(v.complete).toBe(
            tasks.length > 0 && first.tasks.length > 0 && first.tasks.every((t) => t.done),
          );
        }
      }),
    );
  });

  it('a document without milestone headings puts every task into one implicit milestone', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.option(phrase), fc.array(genTask, { maxLength: 3 }))), (sections) => {
        const lines = ['# Todo'];
        const want: Expected['tasks'] = [];
        let group: string | null = null;
        for (const [heading, tasks] of sections) {
          if (heading !== null) {
            lines.push(`## ${heading}`);
            group = heading;
          }
          for (const t of tasks) {
            lines.push(`${t.indent}- [${t.done ? 'x' : ' '}] ${t.text}`);
            want.push({ text: t.text, done: t.done, group });
          }
        }
        const c = parseChecklist(lines.join('\n'));
        if (want.length === 0) expect(c.milestones).toEqual([]);
        else expect(shape(c)).toEqual([{ title: IMPLICIT_MILESTONE, tasks: want }]);
      }),
    );
  });
});

describe('parseChecklist (examples)', () => {
  it("parses seed 003's own implementation plan: 5 milestones with 4/5/5/4/5 tasks", () => {
    const text = readFileSync(new URL('../../fixtures/seed-003/design.md', import.meta.url), 'utf8');
    const c = parseChecklist(text);
    expect(c.milestones.map((m) => [m.number, m.title, m.tasks.length])).toEqual([
      [1, 'State Management (M1)', 4],
      [2, 'Completion Conditions (M2)', 5],
      [3, 'Iteration Loop (M3)', 5],
      [4, 'CLI Integration (M4)', 4],
      [5, 'Polish & Documentation (M5)', 5],
    ]);
    expect(nextUncheckedTask(c)).toMatchObject({
      text: 'Create `src/ralph/state.py` with `LoopState` dataclass',
      done: false,
      group: null,
    });
    expect(progress(c)).toEqual({
      milestone: 'State Management (M1)',
      milestoneDone: 0,
      milestoneTotal: 4,
      tasksDone: 0,
      tasksTotal: 23,
      milestonesDone: 0,
      milestonesTotal: 5,
    });
    // Finishing M1 completes a `milestone` run that started on it, not an `all_tasks` one.
    const m1Done = parseChecklist(
      text.replace(
        /(### 4\.1[\s\S]*?)(### 4\.2)/,
        (_, m1: string, rest: string) => m1.replaceAll('[ ]', '[x]') + rest,
      ),
    );
    expect(currentMilestone(m1Done)?.title).toBe('Completion Conditions (M2)');
    expect(checklistComplete(m1Done, 'milestone', 'State Management (M1)').complete).toBe(true);
    expect(checklistComplete(m1Done, 'all_tasks', null).complete).toBe(false);
    expect(checklistComplete(m1Done, 'milestone', null).complete).toBe(false);
    expect(milestoneComplete(m1Done, 'State Management (M1)')).toBe(true);
    expect(progress(m1Done)).toMatchObject({ milestonesDone: 1, tasksDone: 4, milestoneTotal: 5 });
  });

  it('accepts the heading variants and rejects look-alikes', () => {
    const c = parseChecklist(
      [
        '# Milestone 0: level one is the document title',
        '- [ ] stray',
        '## Milestone 1 — Dash',
        '- [x] a',
        '## Milestone 2 - Hyphen',
        '  * [X] b',
        '## Milestone 3',
        '- [ ] c',
        '## Milestone 4 retrospective',
        '- [ ] not in any milestone',
        '#### Milestone 5: Deep',
        '- [ ]',
        '- [ ]  d  ',
        '-[ ] no space',
      ].join('\n'),
    );
    expect(c.milestones.map((m) => [m.number, m.title, m.tasks.map((t) => t.text)])).toEqual([
      [1, 'Dash', ['a']],
      [2, 'Hyphen', ['b']],
      [3, 'Milestone 3', ['c']],
      [5, 'Deep', ['d']],
    ]);
  });

  it('an empty or garbled document is never complete, and says so', () => {
    for (const text of ['', '# Design\n\nNothing here yet.\n', '## Milestone 1: Empty\n']) {
      const c = parseChecklist(text);
      expect(allTasksComplete(c)).toBe(false);
      expect(checklistComplete(c, 'all_tasks', null)).toMatchObject({ complete: false, empty: true });
      expect(checklistComplete(c, 'milestone', 'Empty')).toMatchObject({ complete: false, empty: true });
    }
    const c = parseChecklist('## Milestone 1: A\n- [x] a\n');
    expect(checklistComplete(c, 'milestone', 'Renamed')).toMatchObject({ complete: false, empty: false });
    expect(checklistComplete(c, 'milestone', 'Renamed').reason).toContain('no longer');
  });
});

const genJournal = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('entry' as const), title: phrase, body: fc.boolean() }),
    fc.record({ kind: fc.constant('marker' as const), n: fc.integer({ min: 1, max: 99 }) }),
  ),
  { maxLength: 12 },
);
const AT = new Date(2025, 0, 15, 14, 30);

describe('journal', () => {
  it('property: recentJournalEntries returns the newest `count` entries, in order, markers only as separators', () => {
    fc.assert(
      fc.property(genJournal, fc.integer({ min: 0, max: 8 }), (items, count) => {
        const text = [
          '# Journal',
          '',
          '```markdown',
          '## Example entry in a fence',
          '```',
          '',
          ...items.map((it) =>
            it.kind === 'marker'
              ? `${iterationMarker(it.n, AT)}\n`
              : `## ${it.title} (2025-01-15 14:32)\n${it.body ? '### Files Read\n- a.ts - why\n' : ''}`,
          ),
        ].join('\n');
        const out = recentJournalEntries(text, count);
        const titles = items.flatMap((it) =>
          it.kind === 'entry' ? [`## ${it.title} (2025-01-15 14:32)`] : [],
        );
        const headings = out.split('\n').filter((l) => l.startsWith('## '));
        const entries = headings.filter((l) => !l.startsWith('## --- Iteration'));
        expect(entries).toEqual(count > 0 ? titles.slice(-count) : []);
        expect(out).toBe(out.trim());
        // Every marker kept is directly followed by an entry.
        headings.forEach((h, i) => {
          if (h.startsWith('## --- Iteration')) expect(headings[i + 1]?.startsWith('## --- ')).toBe(false);
        });
        if (entries.length === 0) expect(out).toBe('');
      }),
    );
  });

  it("keeps seed 003's marker before its entry and drops a trailing marker", () => {
    const entry = [
      '## Implement FooService (2025-01-15 14:32)',
      '### Files Read',
      '- src/services/bar.py - Reviewed existing service pattern',
    ].join('\n');
    const journal = `# Journal\n\n## --- Iteration 2 Start (2025-01-15 14:00) ---\n\n## --- Iteration 3 Start (2025-01-15 14:30) ---\n\n${entry}\n\n${iterationMarker(4, AT)}\n`;
    expect(recentJournalEntries(journal, 5)).toBe(
      `## --- Iteration 3 Start (2025-01-15 14:30) ---\n\n${entry}`,
    );
    expect(recentJournalEntries(journal, 0)).toBe('');
  });

  it('iterationMarker uses local time, zero-padded', () => {
    expect(iterationMarker(3, new Date(2025, 0, 15, 14, 30))).toBe(
      '## --- Iteration 3 Start (2025-01-15 14:30) ---',
    );
    expect(iterationMarker(12, new Date(2025, 10, 5, 9, 7))).toBe(
      '## --- Iteration 12 Start (2025-11-05 09:07) ---',
    );
  });
});

describe('checklistContext', () => {
  const base = {
    checklistPath: 'DESIGN.md',
    journalPath: 'JOURNAL.md',
    recentJournal: '',
    completionPromise: null,
  };

  it('property: names iteration N of M and the next task, and stays small', () => {
    fc.assert(
      fc.property(genDoc, fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 500 }), (doc, n, m) => {
        const checklist = parseChecklist(render(doc).markdown);
        const out = checklistContext({ ...base, iteration: n, maxIterations: m, checklist });
        expect(out).toContain(`(iteration ${n} of ${m}).`);
        const next = nextUncheckedTask(checklist);
        if (next) expect(out).toContain(`- Next task: ${next.text}`);
        else expect(out).toMatch(/- Next task: None/);
        expect(out).not.toContain('Recent Activity');
        const payload =
          (next?.text.length ?? 0) +
          (next?.group?.length ?? 0) +
          (progress(checklist).milestone?.length ?? 0);
        expect(Buffer.byteLength(out) - payload).toBeLessThan(800);
      }),
    );
  });

  it('renders seed 003 §2.4 with journal and promise', () => {
    const checklist = parseChecklist('## Milestone 1: Setup\n### Scaffold\n- [x] init\n- [ ] add tests\n');
    const out = checklistContext({
      ...base,
      iteration: 3,
      maxIterations: 20,
      checklist,
      recentJournal: '## init (2025-01-15 14:32)\n### Lessons Learned\n- x',
      completionPromise: 'ALL_MILESTONES_COMPLETE',
    });
    expect(out).toBe(
      [
        'Continuing autonomous execution (iteration 3 of 20).',
        '',
        '## Current State',
        '- Milestone: Setup (1 of 1)',
        '- Tasks completed: 1/2 (all milestones: 1/2)',
        '- Next task: add tests (DESIGN.md line 4, under "Scaffold")',
        '',
        '## Recent Activity (from journal)',
        '## init (2025-01-15 14:32)',
        '### Lessons Learned',
        '- x',
        '',
        '## Instructions',
        'Do the next task; check it off (`- [x]`) in DESIGN.md only once it is done and tested, then add an entry to JOURNAL.md.',
        'When every milestone is complete, end with a line containing only ALL_MILESTONES_COMPLETE',
        '',
      ].join('\n'),
    );
    const done = checklistContext({
      ...base,
      iteration: 4,
      maxIterations: 20,
      checklist: parseChecklist('- [x] a'),
    });
    expect(done).toContain('- Next task: None - milestone complete');
    const empty = checklistContext({
      ...base,
      journalPath: null,
      iteration: 1,
      maxIterations: 5,
      checklist: { milestones: [] },
    });
    expect(empty).toContain('DESIGN.md has no `- [ ]` tasks');
    expect(empty).not.toContain('JOURNAL');
  });
});

describe('preset checklist', () => {
  const preset = PRESETS.find((p) => p.name === 'checklist');

  it('is registered with seed 003 settings that validate', () => {
    expect(preset?.files).toEqual(['ralph.yml', 'PROMPT.md', 'DESIGN.md', 'JOURNAL.md']);
    const file = presetFile('checklist', 'ralph.yml');
    const { config } = loadConfig({ file, cwd: dirname(file) });
    expect(config.event_loop).toMatchObject({
      prompt_file: 'PROMPT.md',
      max_iterations: 20,
      max_consecutive_failures: 3,
      completion_promise: 'ALL_MILESTONES_COMPLETE',
    });
    expect(config.completion).toMatchObject({ checklist: 'DESIGN.md', condition: 'all_tasks' });
    expect(config.context).toMatchObject({ journal: 'JOURNAL.md', iteration_markers: true });
    expect(config.cli.backend).toBe('claude');
  });

  it('ships an example DESIGN.md, an empty JOURNAL.md and a prompt that ends with the promise', () => {
    const design = parseChecklist(readFileSync(presetFile('checklist', 'DESIGN.md'), 'utf8'));
    expect(design.milestones).toHaveLength(2);
    const tasks = design.milestones.flatMap((m) => m.tasks);
    expect(tasks.length).toBeGreaterThanOrEqual(5);
    expect(tasks.length).toBeLessThanOrEqual(6);
    expect(tasks.every((t) => !t.done && t.group !== null)).toBe(true);
    expect(recentJournalEntries(readFileSync(presetFile('checklist', 'JOURNAL.md'), 'utf8'), 5)).toBe('');
    const prompt = readFileSync(presetFile('checklist', 'PROMPT.md'), 'utf8');
    expect(prompt.split('\n')).toContain('ALL_MILESTONES_COMPLETE');
  });
});
