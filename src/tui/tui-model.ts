import { totalTokens } from '../backends/types.ts';
import { describeEvent } from '../observe/describe-event.ts';
import type { ChecklistProgress, LoopEvent } from '../observe/events.ts';

/** Lines of agent output kept for the output pane (older lines scroll away). */
export const MAX_OUTPUT_LINES = 2000;
/** Events kept for the events pane (newest first). */
export const MAX_EVENTS = 200;
/** Finished iterations kept for the iterations pane (newest first). */
export const MAX_ITERATIONS = 50;

export interface IterationRow {
  iteration: number;
  hat: string | null;
  durationMs: number;
  verdict: string;
  tokens: number;
  costUsd: number | null;
  filesChanged: number | null;
}

export interface PendingQuestion {
  id: string;
  kind: 'question' | 'approval';
  text: string;
  options?: string[] | undefined;
  expiresAt: number | null;
}

/** What the terminal UI shows: built from the event stream alone (the TUI holds no other state). */
export interface TuiModel {
  runId: string | null;
  backend: string;
  branch: string | undefined;
  startedAt: number | null;
  /** The run's runtime at `clockAt` (the last iteration start); the header's clock counts on from it. */
  clockBase: number;
  clockAt: number | null;
  /** An iteration is running (its agent, gates and commit). */
  inIteration: boolean;
  iteration: number;
  maxIterations: number;
  hat: string | null;
  tokens: number;
  /** Tokens the running iteration reported so far (exact once it is recorded). */
  iterationTokens: number;
  costUsd: number;
  /** Checklist or task progress, when the run has one. */
  progress: ChecklistProgress | undefined;
  /** The loop's phase, as the header shows it. */
  phase:
    | { kind: 'starting' | 'running' | 'paused' }
    | { kind: 'parked'; until: number; message: string }
    | { kind: 'idle'; watch: readonly string[] }
    | { kind: 'waiting'; question: PendingQuestion }
    /** forge.wait_for_merge: a milestone's pull request waits to be merged. */
    | { kind: 'merge'; number: number; url: string }
    | { kind: 'finished'; reason: string; message: string; exitCode: number };
  output: string[];
  /** A line still being written (output arrives in chunks). */
  partial: string;
  events: { at: number; text: string; level: 'info' | 'warn' | 'error' }[];
  iterations: IterationRow[];
  /** Limit warnings given (shown in the header). */
  warnings: string[];
}

export function emptyModel(): TuiModel {
  return {
    runId: null,
    backend: '',
    branch: undefined,
    startedAt: null,
    clockBase: 0,
    clockAt: null,
    inIteration: false,
    iteration: 0,
    maxIterations: 0,
    hat: null,
    tokens: 0,
    iterationTokens: 0,
    costUsd: 0,
    progress: undefined,
    phase: { kind: 'starting' },
    output: [],
    partial: '',
    events: [],
    iterations: [],
    warnings: [],
  };
}

function pushEvent(m: TuiModel, at: number, text: string, level: PaneLevel): void {
  m.events.unshift({ at, text, level });
  if (m.events.length > MAX_EVENTS) m.events.length = MAX_EVENTS;
}

function pushOutput(m: TuiModel, text: string): void {
  const parts = (m.partial + text).split('\n');
  m.partial = parts.pop() ?? '';
  for (const line of parts) m.output.push(line.replace(/\r$/, ''));
  if (m.output.length > MAX_OUTPUT_LINES) m.output.splice(0, m.output.length - MAX_OUTPUT_LINES);
}

/** Applies one event to the model (mutates and returns it; `now` stamps the events pane). */
export function reduce(m: TuiModel, e: LoopEvent, now: number): TuiModel {
  switch (e.type) {
    case 'loop.started':
      Object.assign(m, { runId: e.runId, backend: e.backend, branch: e.branch, startedAt: e.at });
      m.maxIterations = e.maxIterations;
      m.phase = { kind: 'running' };
      break;
    case 'iteration.started':
      Object.assign(m, { iteration: e.iteration, maxIterations: e.maxIterations, hat: e.hat });
      Object.assign(m, { branch: e.branch, clockAt: e.startedAt, clockBase: e.elapsedMs, inIteration: true });
      m.iterationTokens = 0;
      if (e.progress) m.progress = e.progress;
      m.phase = { kind: 'running' };
      pushOutput(m, `${m.partial ? '\n' : ''}── iteration ${e.iteration}${e.hat ? ` · ${e.hat}` : ''} ──\n`);
      break;
    case 'agent.event':
      if (e.event.type === 'usage') m.iterationTokens += totalTokens(e.event.usage);
      else if (e.event.type === 'text') pushOutput(m, `${e.event.text}\n`);
      else if (e.event.type === 'tool_call') pushOutput(m, `→ ${e.event.name}\n`);
      else if (e.event.type === 'error') pushOutput(m, `agent error: ${e.event.message}\n`);
      break;
    case 'loop.paused':
      m.phase = { kind: 'paused' };
      break;
    case 'loop.resumed':
      m.phase = { kind: 'running' };
      break;
    case 'loop.parked':
      m.phase = { kind: 'parked', until: e.until, message: e.message };
      break;
    case 'loop.idle':
      m.phase = { kind: 'idle', watch: e.watch };
      break;
    case 'loop.woke':
      m.phase = { kind: 'running' };
      break;
    case 'forge.pull_request':
      if (e.action === 'waiting') m.phase = { kind: 'merge', number: e.number, url: e.url };
      else if (e.action === 'merged' || e.action === 'closed') m.phase = { kind: 'running' };
      break;
    case 'human.question':
      m.phase = {
        kind: 'waiting',
        question: { id: e.id, kind: e.kind, text: e.text, options: e.options, expiresAt: e.expiresAt },
      };
      break;
    case 'human.answered':
      if (m.phase.kind === 'waiting' && m.phase.question.id === e.id) m.phase = { kind: 'running' };
      break;
    case 'limit.warning':
      m.warnings.push(e.message);
      break;
    case 'iteration.finished': {
      const r = e.record;
      m.tokens = e.totals.tokens;
      m.iterationTokens = 0;
      m.costUsd = e.totals.costUsd;
      m.iterations.unshift({
        iteration: r.iteration,
        hat: r.hat,
        durationMs: r.duration_ms,
        verdict: r.verdict,
        tokens: r.tokens.total,
        costUsd: r.cost_usd,
        filesChanged: r.files_changed?.length ?? null,
      });
      if (m.iterations.length > MAX_ITERATIONS) m.iterations.length = MAX_ITERATIONS;
      m.inIteration = false;
      break;
    }
    case 'loop.finished':
      m.phase = { kind: 'finished', reason: e.stopReason, message: e.message, exitCode: e.exitCode };
      Object.assign(m, { clockBase: e.elapsedMs, clockAt: null, inIteration: false });
      m.tokens = e.tokens.total;
      m.costUsd = e.costUsd;
      break;
    default:
      break;
  }
  const level = paneLevel(e);
  if (level) pushEvent(m, now, paneText(e), level);
  return m;
}

type PaneLevel = 'info' | 'warn' | 'error';

/**
 * describeEvent's line, less the run's log path on `loop.started`: in a pane a third of the
 * terminal wide an absolute path wraps over four rows, and `ralph logs` finds the log.
 */
function paneText(e: LoopEvent): string {
  const text = describeEvent(e);
  return e.type === 'loop.started' ? text.replace(/ · log \S.*$/, '') : text;
}

/**
 * Whether the events pane lists an event, and how it marks it; the words are describeEvent's, as
 * on the console and in the logs. Output, iterations and the header show the rest.
 */
function paneLevel(e: LoopEvent): PaneLevel | undefined {
  switch (e.type) {
    case 'loop.started':
    case 'event.published':
    case 'completion.decided':
    case 'git.committed':
    case 'control.received':
    case 'loop.paused':
    case 'loop.resumed':
    case 'loop.woke':
    case 'human.answered':
      return 'info';
    case 'notice':
      return e.level;
    case 'gate.finished':
      return e.summary.passed ? 'info' : 'error';
    case 'loop.parked':
      // The first announcement; the countdown is the header's.
      return e.first ? 'warn' : undefined;
    case 'human.question':
    case 'limit.warning':
      return 'warn';
    case 'forge.pull_request':
      return e.action === 'closed' ? 'warn' : 'info';
    case 'loop.finished':
      return e.exitCode === 0 ? 'info' : 'warn';
    default:
      return undefined;
  }
}
