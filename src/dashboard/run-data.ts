import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { openQuestions, type QuestionRecord } from '../human/control-files.ts';
import { readStatus } from '../human/read-status.ts';
import type { LoopStatusView } from '../human/status-view.ts';
import { stopText } from '../observe/format.ts';
import { STREAM_FILE, type StreamLine } from '../observe/reporters/event-stream-file.ts';
import { anyJson, type LineParser, readJsonlSince, skippedNotice } from '../state/io/jsonl.ts';
import { formatDuration } from '../state/io/time-format.ts';
import type { IterationRecord } from '../state/iteration-record-shape.ts';
import { ralphPaths } from '../state/paths.ts';
import { readRecords, recordsFileOf } from '../state/records-file.ts';
import { type RegistryEntry, readRegistry, workspaceGone } from '../state/run-registry.ts';

/** How the dashboard groups runs. */
export const GROUPS = [
  'running',
  'waiting',
  'paused',
  'parked',
  'idle',
  'stopped',
  'completed',
  'removed',
] as const;
export type Group = (typeof GROUPS)[number];

/** One run of the per-user registry as `ralph runs` and the dashboard list it. */
export interface RunSummary {
  key: string;
  workspace: string;
  runId: string;
  group: Group;
  /** What the group does not say: the stop reason and message, the park's end, the question. */
  detail: string;
  alive: boolean;
  state: LoopStatusView | undefined;
  /** The last sign of it: its state.json's last write, else its last registry line. */
  updatedAt: string;
  /** The registry's last line of the run (the pid, the status it was written with). */
  entry: RegistryEntry;
}

/** A stable, URL-safe key for a workspace. */
export function runKey(workspace: string): string {
  return createHash('sha256').update(workspace).digest('hex').slice(0, 12);
}

/** Where a run stands, from its registry line, state.json and lock (pure apart from the reads). */
export function summarize(entry: RegistryEntry, now: number): RunSummary {
  // A damaged state.json shows as no state here: `ralph status` and the loop report the damage.
  const { state, running: alive } = readStatus(entry.workspace);
  const base = {
    key: runKey(entry.workspace),
    workspace: entry.workspace,
    runId: state?.run_id ?? entry.run_id,
    alive,
    state,
    updatedAt: state?.updated_at ?? entry.updated_at,
    entry,
  };
  // `ralph runs prune` forgets such runs; the index hides them unless asked.
  if (workspaceGone(entry))
    return { ...base, group: 'removed', detail: 'the workspace is gone (ralph runs prune forgets it)' };
  if (!state) return { ...base, group: 'stopped', detail: 'no .ralph/state.json in the workspace' };
  if (alive) {
    switch (state.status) {
      case 'waiting_for_human':
        return {
          ...base,
          group: 'waiting',
          detail: state.waiting_for ? `${state.waiting_for.kind}: ${state.waiting_for.text}` : '',
        };
      case 'paused':
        return { ...base, group: 'paused', detail: 'ralph resume goes on' };
      case 'waiting_for_merge': {
        const pr = state.forge?.prs.find((p) => p.number === state.forge?.waiting);
        return { ...base, group: 'waiting', detail: pr ? `merge of PR #${pr.number}: ${pr.url}` : 'a merge' };
      }
      case 'idle':
        return { ...base, group: 'idle', detail: 'waiting for changes' };
      default:
        if (state.parked && state.parked.until > now)
          return {
            ...base,
            group: 'parked',
            detail: `${state.parked.message} — resumes in ${formatDuration(state.parked.until - now)}`,
          };
        return {
          ...base,
          group: 'running',
          detail: `iteration ${state.current?.number ?? state.iterations + 1}/${state.max_iterations}`,
        };
    }
  }
  if (state.status === 'completed') return { ...base, group: 'completed', detail: state.stop_message ?? '' };
  if (state.stop_reason === null)
    return { ...base, group: 'stopped', detail: 'crashed: the loop died (ralph run --resume continues it)' };
  return { ...base, group: 'stopped', detail: stopText(state.stop_reason, state.stop_message, ': ') };
}

/** Every run of the per-user registry (`$XDG_STATE_HOME/ralph/runs.jsonl` of `env`), summarized. */
export function listRuns(env: NodeJS.ProcessEnv, now = Date.now()): RunSummary[] {
  return readRegistry(env).map((e) => summarize(e, now));
}

export function findRun(env: NodeJS.ProcessEnv, key: string): RunSummary | undefined {
  const entry = readRegistry(env).find((e) => runKey(e.workspace) === key);
  return entry ? summarize(entry, Date.now()) : undefined;
}

function runDir(workspace: string, runId: string): string {
  return join(ralphPaths(workspace).runs, runId);
}

/** The run's iteration records, and a notice naming the damaged lines skipped (if any). */
export function recordsOfRun(
  workspace: string,
  runId: string,
): { records: IterationRecord[]; notice?: string } {
  const file = recordsFileOf(ralphPaths(workspace), runId);
  const { records, skipped } = readRecords(file);
  return skipped.length > 0 ? { records, notice: skippedNotice(file, skipped) } : { records };
}

/** The stream file of a run (`.ralph/runs/<id>/stream.jsonl`). */
export function streamFileOf(workspace: string, runId: string): string {
  return join(runDir(workspace, runId), STREAM_FILE);
}

/** A stream file's line (written by Ralph itself: not checked further). */
export const streamLine = anyJson as LineParser<StreamLine>;

/** Stream lines from byte `offset` on (complete lines only), and the offset after them. */
export function readStream(
  workspace: string,
  runId: string,
  offset: number,
): { lines: StreamLine[]; offset: number } {
  const chunk = readJsonlSince(streamFileOf(workspace, runId), offset, streamLine);
  return { lines: chunk.records, offset: chunk.nextOffset };
}

/** Open questions and approvals of a workspace. */
export function questionsOf(workspace: string): QuestionRecord[] {
  return openQuestions(ralphPaths(workspace).questions);
}

/** Output events: the bulk of a stream file, never needed by the pages (the SSE pane tails the file). */
const OUTPUT = new Set(['agent.output', 'agent.event', 'gate.output', 'agent.heartbeat']);

/**
 * A run's stream without its output, read incrementally: each page and live refresh reads only
 * what was appended since the last one, not the whole file again.
 */
export function createStreamCache(): (run: RunSummary) => StreamLine[] {
  const cache = new Map<string, { offset: number; lines: StreamLine[] }>();
  return (run) => {
    const key = `${run.workspace}\0${run.runId}`;
    const entry = cache.get(key) ?? { offset: 0, lines: [] };
    const next = readStream(run.workspace, run.runId, entry.offset);
    entry.offset = next.offset;
    for (const line of next.lines) if (!OUTPUT.has(line.event.type)) entry.lines.push(line);
    cache.set(key, entry);
    return entry.lines;
  };
}
