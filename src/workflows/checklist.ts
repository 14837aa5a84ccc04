// Seed 003's checklist workflow as pure functions: the design document's milestones and tasks, the
// completion conditions over them, the journal's recent entries and the per-iteration context block.
import { type Checklist, type Milestone, parseHeading, scanMarkdown, type Task } from './checklist-parse.ts';

export {
  type Checklist,
  IMPLICIT_MILESTONE,
  type Milestone,
  parseChecklist,
  type Task,
} from './checklist-parse.ts';

import { localTime } from '../state/io/time-format.ts';

/** Where a run stands in the design document. */
export interface ChecklistProgress {
  /** Title of the current milestone; null when none is left (or there are no tasks). */
  milestone: string | null;
  /** Checked / all tasks of the current milestone (0/0 without one). */
  milestoneDone: number;
  milestoneTotal: number;
  tasksDone: number;
  tasksTotal: number;
  /** Milestones without an unchecked task (an empty milestone counts as done, as it is never current). */
  milestonesDone: number;
  milestonesTotal: number;
}

/** The verdict of a completion condition over the design document. */
export interface ChecklistVerdict {
  complete: boolean;
  /**
   * The document has no tasks at all. Never complete: a missing, emptied or garbled design
   * document must not end an overnight run as "done"; the caller should warn instead.
   */
  empty: boolean;
  /** One line for the log: why it is (not) complete. */
  reason: string;
}

function tasksOf(c: Checklist): Task[] {
  return c.milestones.flatMap((m) => m.tasks);
}

/** True when the document has at least one task and every task is checked. */
export function allTasksComplete(c: Checklist): boolean {
  const tasks = tasksOf(c);
  return tasks.length > 0 && tasks.every((t) => t.done);
}

/** The first milestone with an unchecked task, or null when none is left. */
export function currentMilestone(c: Checklist): Milestone | null {
  return c.milestones.find((m) => m.tasks.some((t) => !t.done)) ?? null;
}

/**
 * Whether the milestone titled `title` has tasks and all are checked (false when no milestone
 * has that title). Without a title it asks about the current milestone, which by definition is
 * never complete while it exists: true only when none is left and the document has tasks. For
 * seed 003's `milestone` condition, pass the title captured when the run started.
 */
export function milestoneComplete(c: Checklist, title?: string): boolean {
  if (title === undefined) return currentMilestone(c) === null && tasksOf(c).length > 0;
  const m = c.milestones.find((x) => x.title === title);
  return m !== undefined && m.tasks.length > 0 && m.tasks.every((t) => t.done);
}

/** The next task to do: the first unchecked task (it is always in the current milestone). */
export function nextUncheckedTask(c: Checklist): Task | null {
  return currentMilestone(c)?.tasks.find((t) => !t.done) ?? null;
}

export function progress(c: Checklist): ChecklistProgress {
  const current = currentMilestone(c);
  const tasks = tasksOf(c);
  return {
    milestone: current?.title ?? null,
    milestoneDone: current ? current.tasks.filter((t) => t.done).length : 0,
    milestoneTotal: current ? current.tasks.length : 0,
    tasksDone: tasks.filter((t) => t.done).length,
    tasksTotal: tasks.length,
    milestonesDone: c.milestones.filter((m) => m.tasks.every((t) => t.done)).length,
    milestonesTotal: c.milestones.length,
  };
}

/**
 * Seed 003's completion conditions over the design document.
 *
 * - `all_tasks`: every task of every milestone is checked.
 * - `milestone`: the milestone that was current when the run started (`startMilestone`, captured
 *   with `currentMilestone(c)?.title ?? null` and kept across `--resume`) has all its tasks
 *   checked; the run then stops even though later milestones remain. If that milestone's heading
 *   disappears the run is not complete (the reason says so). `startMilestone` null means no
 *   milestone was left at start, so it reduces to `all_tasks`.
 *
 * A document without tasks is never complete (`empty` is set so the caller can warn).
 */
export function checklistComplete(
  c: Checklist,
  condition: 'all_tasks' | 'milestone',
  startMilestone: string | null,
): ChecklistVerdict {
  const p = progress(c);
  if (p.tasksTotal === 0) {
    return { complete: false, empty: true, reason: 'the design document has no `- [ ]` tasks' };
  }
  if (condition === 'milestone' && startMilestone !== null) {
    const m = c.milestones.find((x) => x.title === startMilestone);
    if (!m) {
      return {
        complete: false,
        empty: false,
        reason: `milestone "${startMilestone}" is no longer in the design document`,
      };
    }
    const done = m.tasks.filter((t) => t.done).length;
    const complete = milestoneComplete(c, startMilestone);
    return {
      complete,
      empty: false,
      reason: `milestone "${startMilestone}": ${done}/${m.tasks.length} tasks checked`,
    };
  }
  const complete = p.tasksDone === p.tasksTotal;
  return {
    complete,
    empty: false,
    reason: complete
      ? `all ${p.tasksTotal} tasks checked`
      : `${p.tasksTotal - p.tasksDone} of ${p.tasksTotal} tasks unchecked`,
  };
}

const MARKER = /^ {0,3}##[ \t]+-{3}[ \t]*Iteration[ \t]+\d+\b.*-{3}[ \t]*$/;

/**
 * The newest `count` journal entries, in file order, trimmed and separated by blank lines; ''
 * when there are none. An entry is a `## ` heading with its body (up to the next `#`/`## `
 * heading; `### ` sub-headings belong to it). Iteration markers (`## --- Iteration N Start (…) ---`)
 * are not entries: the marker directly before a returned entry is kept as its separator, and
 * markers not followed by an entry (iterations that wrote nothing, the one just starting) are
 * dropped. Headings in fenced code or HTML comments (a template's example) do not count.
 */
export function recentJournalEntries(journal: string, count: number): string {
  const blocks: { marker: boolean; lines: string[] }[] = [];
  let block: { marker: boolean; lines: string[] } | null = null;
  for (const { raw, visible } of scanMarkdown(journal)) {
    const heading = parseHeading(visible);
    if (heading && heading.level <= 2) {
      block = heading.level === 2 ? { marker: MARKER.test(visible), lines: [] } : null;
      if (block) blocks.push(block);
    }
    block?.lines.push(raw);
  }
  const entries = blocks.flatMap((b, i) => (b.marker ? [] : [i]));
  const picked = count > 0 ? entries.slice(-count) : [];
  const parts: string[] = [];
  for (const i of picked) {
    const before = blocks[i - 1];
    if (before?.marker) parts.push(before.lines.join('\n').trim());
    parts.push((blocks[i] as { lines: string[] }).lines.join('\n').trim());
  }
  return parts.join('\n\n');
}

/** `## --- Iteration N Start (YYYY-MM-DD HH:MM) ---` in local time (seed 003 §3.3). */
export function iterationMarker(n: number, at: Date): string {
  return `## --- Iteration ${n} Start (${localTime(at, 'YYYY-MM-DD HH:mm')}) ---`;
}

/** What {@link checklistContext} needs; the journal text is already cut to its recent entries. */
export interface ChecklistContextInput {
  iteration: number;
  maxIterations: number;
  /** The design document as the user configured it (`DESIGN.md`). */
  checklistPath: string;
  checklist: Checklist;
  journalPath: string | null;
  /** From {@link recentJournalEntries}; '' leaves the section out. */
  recentJournal: string;
  /** The line that ends the run when every milestone is done; null to not mention one. */
  completionPromise: string | null;
}

/** Seed 003 §2.4's context block, kept short: it is paid for on every iteration. */
export function checklistContext(input: ChecklistContextInput): string {
  const { checklist: c, checklistPath: doc } = input;
  const p = progress(c);
  const current = currentMilestone(c);
  const next = nextUncheckedTask(c);
  const state: string[] = [];
  if (p.tasksTotal === 0) {
    state.push(`- Milestone: none (${doc} has no \`- [ ]\` tasks yet)`);
  } else if (current) {
    const index = c.milestones.indexOf(current) + 1;
    state.push(`- Milestone: ${current.title} (${index} of ${p.milestonesTotal})`);
    state.push(
      `- Tasks completed: ${p.milestoneDone}/${p.milestoneTotal} (all milestones: ${p.tasksDone}/${p.tasksTotal})`,
    );
  } else {
    state.push(`- Milestone: none left (all ${p.milestonesTotal} complete)`);
    state.push(`- Tasks completed: ${p.tasksDone}/${p.tasksTotal}`);
  }
  const where = next ? ` (${doc} line ${next.line}${next.group ? `, under "${next.group}"` : ''})` : '';
  const none = p.tasksTotal === 0 ? 'None' : 'None - milestone complete';
  state.push(`- Next task: ${next ? `${next.text}${where}` : none}`);

  const journal = input.journalPath;
  const instructions = [
    `Do the next task; check it off (\`- [x]\`) in ${doc} only once it is done and tested${
      journal ? `, then add an entry to ${journal}` : ''
    }.`,
  ];
  if (input.completionPromise) {
    instructions.push(
      `When every milestone is complete, end with a line containing only ${input.completionPromise}`,
    );
  }
  const sections = [
    `Continuing autonomous execution (iteration ${input.iteration} of ${input.maxIterations}).`,
    ['## Current State', ...state].join('\n'),
  ];
  const recent = input.recentJournal.trim();
  if (recent.length > 0) sections.push(`## Recent Activity (from journal)\n${recent}`);
  sections.push(['## Instructions', ...instructions].join('\n'));
  return `${sections.join('\n\n')}\n`;
}
