import type { ParallelEvent, WorkerView } from '../observe/parallel-events.ts';
import type { ParallelTaskState } from '../state/parallel-files.ts';

/** One worker slot as the coordinator reports it (`workers.progress`). */
export type SlotInput = Omit<WorkerView, 'pid'>;

/** The coordinator's events, as the TUI reads them. */
export type ParallelInput = ParallelEvent;

/** Where a task in the merge queue is. */
export type QueueStep =
  | 'queued'
  | 'merging'
  | 'conflict'
  | 'gates'
  | 'gates failed'
  | `PR #${number} ${string}`;

export interface ParallelModel {
  id: string | null;
  target: string | null;
  slots: number;
  resumed: boolean;
  /** Session start (ms): the header's clock. */
  startedAt: number | null;
  /** Every task seen and its last state (titles for the queue). */
  tasks: Map<string, { title: string; state: ParallelTaskState | 'working' }>;
  /** Tasks known when the run opened; more appear as workers take them. */
  knownAtStart: number;
  /** Tasks merged this session (each once, however often reported); the summary's count at the end. */
  mergedIds: Set<string>;
  merged: number;
  workers: SlotInput[];
  costUsd: number;
  tokens: number;
  /** The merge queue, oldest first. */
  queue: { task: string; step: QueueStep }[];
  /** Console lines (the plain mode's), newest first, bounded. */
  events: { text: string; level: 'info' | 'warn' }[];
  stopping: string | null;
  finished: { reason: string; message: string; merged: number; total: number } | null;
}

export const MAX_PARALLEL_EVENTS = 200;

export function emptyParallelModel(): ParallelModel {
  return {
    id: null,
    target: null,
    slots: 0,
    resumed: false,
    startedAt: null,
    tasks: new Map(),
    knownAtStart: 0,
    mergedIds: new Set(),
    merged: 0,
    workers: [],
    costUsd: 0,
    tokens: 0,
    queue: [],
    events: [],
    stopping: null,
    finished: null,
  };
}

/** Tasks in the run so far: those known at the start, or every one seen since, whichever is more. */
export function totalTasks(m: ParallelModel): number {
  return m.finished?.total ?? Math.max(m.knownAtStart, m.tasks.size);
}

/** Puts a task in the queue at `step`, or takes it out (null); `onlyIfQueued`: steps of a merge under way. */
function setQueue(m: ParallelModel, task: string, step: QueueStep | null, onlyIfQueued = false): void {
  const i = m.queue.findIndex((q) => q.task === task);
  if (step === null) {
    if (i >= 0) m.queue.splice(i, 1);
  } else if (i >= 0) (m.queue[i] as { step: QueueStep }).step = step;
  else if (!onlyIfQueued) m.queue.push({ task, step });
}

function seeTask(m: ParallelModel, task: string, title: string, state: ParallelTaskState | 'working'): void {
  m.tasks.set(task, { title, state });
}

/** Folds one coordinator event into the model (mutates and returns it: the TUI's one writer). */
export function reduceParallel(m: ParallelModel, e: ParallelInput, now: number): ParallelModel {
  switch (e.type) {
    case 'parallel.started':
      m.id = e.id;
      m.target = e.target;
      m.slots = e.workers;
      m.resumed = e.resumed;
      m.knownAtStart = e.tasks;
      m.startedAt = now;
      // Idle slots show before the first progress report.
      if (m.workers.length === 0)
        for (let i = 1; i <= e.workers; i++)
          m.workers.push({
            worker: `w${i}`,
            task: null,
            title: null,
            kind: null,
            iteration: 0,
            costUsd: 0,
            status: 'idle',
          });
      break;
    case 'worker.started': {
      seeTask(m, e.task, e.title, 'working');
      const slot = {
        worker: e.worker,
        task: e.task,
        title: e.title,
        kind: e.kind,
        iteration: 0,
        costUsd: 0,
        status: 'starting',
      };
      const i = m.workers.findIndex((w) => w.worker === e.worker);
      if (i >= 0) m.workers[i] = slot;
      else m.workers.push(slot);
      break;
    }
    case 'workers.progress':
      m.workers = e.workers.map((w) => ({ ...w }));
      m.costUsd = e.costUsd;
      m.tokens = e.tokens;
      break;
    case 'task.state':
      seeTask(m, e.task, e.title, e.state);
      setQueue(m, e.task, e.state === 'queued' ? 'queued' : e.state === 'merging' ? 'merging' : null);
      break;
    case 'merge.started':
      seeTask(m, e.task, e.title, 'merging');
      setQueue(m, e.task, 'merging');
      break;
    case 'merge.conflict':
      setQueue(m, e.task, 'conflict', true);
      break;
    case 'merge.gates':
      setQueue(
        m,
        e.task,
        e.phase === 'started' ? 'gates' : e.phase === 'failed' ? 'gates failed' : 'merging',
        true,
      );
      break;
    case 'merge.merged': {
      const t = m.tasks.get(e.task);
      m.mergedIds.add(e.task);
      m.merged = m.mergedIds.size;
      seeTask(m, e.task, t?.title ?? e.task, 'merged');
      setQueue(m, e.task, null);
      break;
    }
    case 'merge.pull_request':
      if (e.action !== 'merged') setQueue(m, e.task, `PR #${e.number} ${e.action}`, true);
      break;
    case 'parallel.limit':
      m.stopping = e.message;
      break;
    case 'parallel.finished':
      m.finished = { reason: e.reason, message: e.message, merged: e.merged, total: e.total };
      m.merged = e.merged;
      break;
    case 'worker.finished':
      break;
  }
  return m;
}

/** Adds console lines (a formatted event may hold several) to the events pane, newest first. */
export function addLines(m: ParallelModel, text: string, level: 'info' | 'warn' = 'info'): void {
  for (const line of text.split('\n')) if (line.trim()) m.events.unshift({ text: line, level });
  if (m.events.length > MAX_PARALLEL_EVENTS) m.events.length = MAX_PARALLEL_EVENTS;
}
