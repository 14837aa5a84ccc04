import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { withdrawRunQuestions } from '../../human/control-files.ts';
import { nextLogFile } from '../../observe/reporters/run-log.ts';
import { killGroup } from '../../process/kill-group.ts';
import type { SweepMarked } from '../../process/marked-processes.ts';
import { isPidAlive, liveGroupMembers } from '../../process/pids.ts';
import { removeCrashLeftovers, repairLastRecord } from '../../state/crash-repair.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import { removeFile } from '../../state/io/file-writes.ts';
import { readOptional } from '../../state/io/read-optional.ts';
import { localTime } from '../../state/io/time-format.ts';
import { openOutputFile } from '../../state/io/write-faults.ts';
import type { PendingEvent } from '../../state/loop-state.ts';
import { isUnfinished, type LoopState, readLoopState, writeLoopState } from '../../state/loop-state.ts';
import { RALPH_DIR, type RalphPaths } from '../../state/paths.ts';
import { ensureRuntimeIgnored } from '../../state/runtime-ignore.ts';
import { acquireWorkspaceLock, type WorkspaceLock } from '../../state/workspace-lock.ts';
import { recordedAgentGroup } from '../context/force-signal.ts';
import type { StartMode } from '../context/run-options.ts';
import { readPreviousState, resumes } from './start-mode.ts';

/** A run ready to iterate: its state, the workspace lock it holds, what preparing it did. */
export interface PreparedRun {
  state: LoopState;
  /** The resumed run was unfinished (crashed or interrupted): a session that does nothing keeps it so. */
  resumedUnfinished?: boolean;
  lock: WorkspaceLock;
  resumed: boolean;
  notices: string[];
}

const compactStamp = (d: Date) => localTime(d, 'YYYYMMDD-HHmmss');

/** A new run's id, `runLoop`'s `runId`: the start time, compact, and six random hex digits. */
export function newRunId(now: Date): string {
  return `${compactStamp(now)}-${randomBytes(3).toString('hex')}`;
}

/** Kills what is left of a crashed run's agent group, unless its pid now belongs to someone else. */
export async function killOrphanedAgent(state: LoopState, graceMs: number): Promise<number> {
  const pid = recordedAgentGroup(state);
  if (pid === undefined) return 0;
  const members = liveGroupMembers(pid);
  if (members.length === 0) return 0;
  await killGroup(pid, graceMs);
  return members.length;
}

/** Kills the earlier run's agent group and every process carrying its mark; says what it killed. */
async function killLeftovers(previous: LoopState, graceMs: number, sweep: SweepMarked): Promise<string[]> {
  const notices: string[] = [];
  const killed = await killOrphanedAgent(previous, graceMs);
  if (killed > 0)
    notices.push(
      `killed ${killed} leftover process(es) of the interrupted run's agent (group ${previous.current?.agent_pid})`,
    );
  // A run that ended (completed or stopped) swept its mark as it ended, and a mark is only
  // inherited, never acquired: nothing can carry it since. A crashed or interrupted one's is looked for.
  const ended = previous.status === 'completed' || previous.status === 'stopped';
  const swept = ended ? [] : await sweep({ runId: previous.run_id }, graceMs);
  if (swept.length > 0)
    notices.push(
      `killed ${swept.length} process(es) left running by run ${previous.run_id}: ${swept.map((p) => `${p.pid} (${p.command})`).join(', ')}`,
    );
  return notices;
}

/**
 * Takes the workspace lock and loads or creates the run state: refuses to clobber an unfinished run
 * unless told `--resume` or `--fresh`, and on resume first kills the dead run's agent group.
 */
export async function prepareRun(opts: {
  paths: RalphPaths;
  mode: StartMode;
  backend: string;
  maxIterations: number;
  killGraceMs: number;
  now: Date;
  /** Events a new run starts with (the starting event in hats mode). */
  initialEvents: PendingEvent[];
  /** The scratchpad files a new run clears: Ralph's own, under `.ralph/` (the loop's and each hat's). */
  scratchpadFiles: readonly string[];
  /** Kills what a run's iterations left running (by the mark in their environment). */
  sweep: SweepMarked;
  /** The id a new run gets (default: a fresh one). */
  runId?: string | undefined;
  /** The run's environment: where the user's state directory (the lock's twin) is. */
  env: NodeJS.ProcessEnv;
  /** A new run's program-running git config, saved with its first state (a resumed run keeps its own). */
  gitConfig?: LoopState['git_config'] | undefined;
}): Promise<PreparedRun> {
  const { paths } = opts;
  mkdirSync(paths.dir, { recursive: true });
  const runId = opts.runId ?? newRunId(opts.now);
  const lock = acquireWorkspaceLock(paths, runId, opts.env);
  try {
    const notices: string[] = [];
    if (lock.tookOver)
      notices.push(
        `took over a stale lock left by pid ${lock.tookOver.pid} (${isPidAlive(lock.tookOver.pid) ? 'that pid now belongs to another process' : 'no longer running'})`,
      );
    // Before any agent runs `git add -A`: git must already ignore Ralph's runtime files.
    const hadIgnore = existsSync(paths.gitignore);
    const ignored = ensureRuntimeIgnored(paths).added;
    if (ignored.length > 0)
      notices.push(
        hadIgnore
          ? `added ${ignored.join(', ')} to .ralph/.gitignore (Ralph's runtime files are never committed)`
          : "wrote .ralph/.gitignore: git ignores Ralph's runtime files and this file (`ralph init` makes it one to commit)",
      );
    const previous = readPreviousState(paths.state, opts.mode, 'setAside');
    const resuming = resumes(previous, opts.mode);
    // The stop-request file of older Ralph versions (stops now go through control/inbox.jsonl).
    removeFile(paths.stopRequest);
    // Resumed or replaced, the earlier run's agent and whatever it detached must not work alongside.
    if (previous) notices.push(...(await killLeftovers(previous, opts.killGraceMs, opts.sweep)));
    // A crash between two durable writes: finish the first's work, drop the temp files.
    const leftovers = removeCrashLeftovers(paths);
    if (leftovers.length > 0) notices.push(`removed ${leftovers.join(', ')} left by a crash`);
    // The swap journal a kill mid-gate left is put back by protectAtStart, after the baseline.
    if (previous && repairLastRecord(paths, previous))
      notices.push(
        `recorded iteration ${previous.last_record?.iteration} of run ${previous.run_id}, which a crash had left unrecorded`,
      );

    if (resuming && previous) {
      if (previous.current) previous.current.agent_pid = null;
      const state: LoopState = {
        ...previous,
        status: 'running',
        pid: process.pid,
        backend: opts.backend,
        max_iterations: opts.maxIterations,
        stop_reason: null,
        stop_message: null,
        exit_code: null,
        // A pause, a stop or a human timeout belonged to the session that ended.
        paused: false,
        stop_requested: false,
        human_timeout: null,
        waiting_for: null,
      };
      if (!existsSync(join(paths.root, state.log_file)))
        state.log_file = relative(paths.root, nextLogFile(paths.logs, opts.now));
      ensureEventsFile(paths, state.events_file);
      writeLoopState(paths.state, state);
      return { state, lock, resumed: true, resumedUnfinished: isUnfinished(previous), notices };
    }
    if (opts.mode === 'resume') {
      notices.push(
        previous
          ? `the previous run ${previous.run_id} completed; starting a new run`
          : 'no earlier run to resume; starting a new run',
      );
    }
    // Questions the earlier run kept open for --resume: nothing will wait for them now.
    if (previous) withdrawRunQuestions(paths.questions, previous.run_id, opts.now.getTime());
    // A new run starts with a clean scratchpad of Ralph's; --resume keeps it. A scratchpad outside
    // .ralph/ is the user's file and is never cleared. Memories and tasks are kept.
    for (const file of opts.scratchpadFiles) removeFile(file);
    let eventsFile = join(RALPH_DIR, `events-${compactStamp(opts.now)}.jsonl`);
    // Two runs started in the same second must not share an event log.
    if (existsSync(join(paths.root, eventsFile))) eventsFile = join(RALPH_DIR, `events-${runId}.jsonl`);
    ensureEventsFile(paths, eventsFile);
    const state: LoopState = {
      version: 1,
      run_id: runId,
      status: 'running',
      started_at: opts.now.toISOString(),
      updated_at: opts.now.toISOString(),
      pid: process.pid,
      workspace: paths.root,
      backend: opts.backend,
      max_iterations: opts.maxIterations,
      iterations: 0,
      current: null,
      consecutive_failures: 0,
      cost_usd: 0,
      tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
      elapsed_ms: 0,
      pending_events: opts.initialEvents,
      ...carriedToNewRun(previous),
      ...(opts.gitConfig ? { git_config: opts.gitConfig } : {}),
      events_file: eventsFile,
      events_offset: 0,
      seen_topics: [],
      hat_activations: {},
      recoveries: 0,
      last_signature: null,
      signature_repeats: 0,
      malformed_streak: 0,
      idle: false,
      log_file: relative(paths.root, nextLogFile(paths.logs, opts.now)),
      stop_reason: null,
      stop_message: null,
      exit_code: null,
    };
    writeLoopState(paths.state, state);
    return { state, lock, resumed: false, notices };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * What a new run takes over from the one before: the inbox is the workspace's, not the run's, so
 * what earlier runs consumed stays consumed, and guidance nobody has read yet goes to this run.
 */
export function carriedToNewRun(previous: LoopState | undefined): Pick<LoopState, 'control' | 'guidance'> {
  return {
    ...(previous?.control ? { control: previous.control } : {}),
    ...(previous?.guidance?.length ? { guidance: previous.guidance } : {}),
  };
}

/**
 * `--resume` of a run whose changes stay uncommitted on purpose (a human rejected them, or a stop
 * held the review point): the dirty-tree check at start lets them be.
 */
export function resumesUncommitted(paths: RalphPaths, mode: StartMode): boolean {
  if (mode !== 'resume') return false;
  try {
    const previous = readLoopState(paths.state);
    // A rollback a crash cut short leaves the set-aside changes in the tree until it is finished.
    return (
      previous?.status !== 'completed' &&
      (previous?.uncommitted_changes === true || Boolean(previous?.rollback))
    );
  } catch {
    return false; // a damaged state file is reported when the run is prepared
  }
}

/**
 * The run's events file, and `current-events` naming it: not flushed (~1-10 ms before the first
 * agent), nor rewritten when it says so already. state.json's `events_file`, flushed right after,
 * is what it is derived from, and every start writes it again: a power loss undoing it costs nothing.
 * The events file is made by opening it as the output file it is (its lines are the writes).
 */
function ensureEventsFile(paths: RalphPaths, relPath: string): void {
  const abs = join(paths.root, relPath);
  if (!existsSync(abs)) closeSync(openOutputFile(abs));
  if (readOptional(paths.currentEvents, 'absent') !== `${relPath}\n`)
    writeFileAtomicSync(paths.currentEvents, `${relPath}\n`, { fsync: false });
}
