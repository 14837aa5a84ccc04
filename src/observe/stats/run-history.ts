import { readdirSync } from 'node:fs';
import type { SkippedLine } from '../../state/io/jsonl.ts';
import type { IterationRecord } from '../../state/iteration-record-shape.ts';
import { loopStateOf } from '../../state/loop-state.ts';
import { ralphPaths } from '../../state/paths.ts';
import { readRecords, recordsFileOf } from '../../state/records-file.ts';
import { type RegistryEntry, readRegistryLines } from '../../state/run-registry.ts';
import type { Task } from '../../state/tasks/task.ts';
import { readTasks } from '../../state/tasks/task-file.ts';
import { readMetricAttempts, type WorkspaceAttempts } from './metric-series.ts';

/** One run of a workspace as its files tell it: the iteration records and how it ended. */
export interface RunHistory {
  workspace: string;
  run_id: string;
  records: IterationRecord[];
  /** The stop reason (`completed`, `max_iterations`, `interrupted` …); null while it runs or when no file says. */
  stop_reason: string | null;
  /** Lines of its iterations.jsonl that were not records (skipped; the reader says so). */
  skipped?: SkippedLine[];
}

/** A file a reader skipped damaged lines of. */
export interface DamagedFile {
  file: string;
  skipped: SkippedLine[];
}

/** What the statistics and the estimate read: the runs and the tasks of one or more workspaces. */
export interface History {
  workspaces: string[];
  runs: RunHistory[];
  tasks: Task[];
  /** Each workspace's `.ralph/metric/attempts.jsonl` (absent: none was read). */
  metric?: WorkspaceAttempts[] | undefined;
  /** Files whose damaged lines were skipped, for the reader's notice. */
  damaged?: DamagedFile[];
}

function dirNames(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
}

/**
 * How a run ended: state.json knows the workspace's last run; the registry's last line of the run
 * knows older ones; else the stop its last record decided.
 */
function stopReasonOf(
  runId: string,
  records: IterationRecord[],
  state: ReturnType<typeof loopStateOf>,
  registry: RegistryEntry[],
): string | null {
  if (state?.run_id === runId) return state.stop_reason;
  const line = registry.findLast((e) => e.run_id === runId && e.status !== 'running');
  if (line) return line.stop_reason ?? line.status;
  return records.at(-1)?.decision?.stop?.reason ?? null;
}

/** The records files of `runs` whose damaged lines were skipped, for the reader's notice. */
export function damagedRecordFiles(runs: readonly RunHistory[]): DamagedFile[] {
  return runs.flatMap((r) =>
    r.skipped?.length ? [{ file: recordsFileOf(ralphPaths(r.workspace), r.run_id), skipped: r.skipped }] : [],
  );
}

/** The runs under a workspace's `.ralph/runs/` (with a record or a damaged line), oldest first. */
export function readWorkspaceRuns(workspace: string, registry: RegistryEntry[] = []): RunHistory[] {
  const paths = ralphPaths(workspace);
  const state = loopStateOf(workspace);
  const mine = registry.filter((e) => e.workspace === workspace);
  return (
    dirNames(paths.runs)
      .map((runId) => {
        const { records, skipped } = readRecords(recordsFileOf(paths, runId));
        return {
          workspace,
          run_id: runId,
          records,
          skipped,
          stop_reason: stopReasonOf(runId, records, state, mine),
        };
      })
      // A run whose every line is damaged stays, with no records, so its readers can say so.
      .filter((r) => r.records.length > 0 || (r.skipped?.length ?? 0) > 0)
      .sort((a, b) => (a.records[0]?.started_at ?? '').localeCompare(b.records[0]?.started_at ?? ''))
  );
}

/**
 * The history of `workspace`, and (`all`) of every workspace in the per-user registry whose runs
 * are still there. Tasks come from each workspace's `.ralph/agent/tasks.jsonl`.
 */
export function readHistory(workspace: string | undefined, env: NodeJS.ProcessEnv, all = false): History {
  const registry = readRegistryLines(env);
  const here = workspace === undefined ? [] : [workspace];
  const workspaces = all ? [...new Set([...here, ...registry.map((e) => e.workspace)])] : here;
  const runs = workspaces.flatMap((w) => readWorkspaceRuns(w, registry));
  const recorded = runs.filter((r) => r.records.length > 0);
  const tasks = workspaces.flatMap((w) => {
    try {
      return readTasks(ralphPaths(w).tasks);
    } catch {
      // A damaged tasks file: `ralph tools task list` reports it; the statistics go on without it.
      return [];
    }
  });
  const withRuns = workspaces.filter((w) => recorded.some((r) => r.workspace === w));
  const attempts = withRuns.map(readMetricAttempts);
  const metric = attempts.filter((a) => a.lines.length > 0);
  const damaged = [
    ...damagedRecordFiles(runs),
    ...attempts.flatMap((a) =>
      a.skipped?.length ? [{ file: ralphPaths(a.workspace).metricAttempts, skipped: a.skipped }] : [],
    ),
  ];
  return { workspaces: withRuns, runs: recorded, tasks, metric, damaged };
}
