import { resolve } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import type { ChecklistProgress } from '../../observe/events.ts';
import { appendText } from '../../state/io/file-writes.ts';
import { readOptional } from '../../state/io/read-optional.ts';
import type { LoopState } from '../../state/loop-state.ts';
import {
  type Checklist,
  checklistComplete,
  checklistContext,
  currentMilestone,
  iterationMarker,
  parseChecklist,
  progress,
  recentJournalEntries,
} from '../../workflows/checklist.ts';
import { checklistCondition } from '../decide/completion.ts';

/** The checklist workflow's view of the design document, read fresh from disk. */
export interface ChecklistView {
  checklist: Checklist;
  progress: ChecklistProgress;
  /** The configured condition (all_tasks / milestone) holds. */
  complete: boolean;
}

/** Reads and evaluates the design document; undefined without `completion.checklist` or when it is missing. */
export function readChecklist(
  workspace: string,
  config: RalphConfig,
  startMilestone: string | null,
): ChecklistView | undefined {
  const file = config.completion.checklist;
  if (!file) return undefined;
  const text = readOptional(resolve(workspace, file), 'absent');
  if (text === undefined) return undefined;
  const checklist = parseChecklist(text);
  const condition = checklistCondition(config);
  const complete =
    condition === 'promise'
      ? false
      : checklistComplete(checklist, condition ?? 'all_tasks', startMilestone).complete;
  return { checklist, progress: progress(checklist), complete };
}

export function currentMilestoneTitle(view: ChecklistView | undefined): string | null {
  return view ? (currentMilestone(view.checklist)?.title ?? null) : null;
}

/**
 * The context block that starts every prompt of a checklist run (seed 003 §2.4); `readJournal`
 * reads the journal (a dry run: as it will be once PROGRESS.md archiving ran).
 */
export function checklistContextBlock(
  workspace: string,
  config: RalphConfig,
  view: ChecklistView,
  iteration: number,
  maxIterations: number,
  promise: string | null,
  readJournal: (path: string) => string | undefined = (path) => readOptional(path, 'absent'),
): string {
  const journal = config.context.journal;
  const journalText = journal ? readJournal(resolve(workspace, journal)) : null;
  return checklistContext({
    iteration,
    maxIterations,
    checklistPath: config.completion.checklist ?? '',
    checklist: view.checklist,
    journalPath: journal ?? null,
    recentJournal: journalText ? recentJournalEntries(journalText, config.context.journal_entries) : '',
    completionPromise: promise,
  });
}

/** Appends `## --- Iteration N Start (ts) ---` to the journal when asked to. */
export function writeIterationMarker(
  workspace: string,
  config: RalphConfig,
  iteration: number,
  at: Date,
): void {
  const journal = config.context.journal;
  if (!journal || !config.context.iteration_markers) return;
  const path = resolve(workspace, journal);
  const text = readOptional(path, 'throw') ?? '';
  appendText(
    path,
    `${text.length > 0 && !text.endsWith('\n') ? '\n' : ''}\n${iterationMarker(iteration, at)}\n`,
  );
}

/** A new checklist run: the design document, the milestone current at the start and the counts then. */
export function noteChecklistStart(
  state: Pick<LoopState, 'checklist' | 'start_milestone' | 'start_progress'>,
  checklist: string,
  view: ChecklistView | undefined,
): void {
  state.checklist = checklist;
  state.start_milestone = currentMilestoneTitle(view);
  state.start_progress = view
    ? { tasks_done: view.progress.tasksDone, milestones_done: view.progress.milestonesDone }
    : null;
}
