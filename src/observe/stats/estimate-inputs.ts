import { relative, resolve } from 'node:path';
import { priceOf } from '../../backends/pricing.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { readOptional } from '../../state/io/read-optional.ts';
import { ralphPaths } from '../../state/paths.ts';
import { readRegistryLines } from '../../state/run-registry.ts';
import { openTasks } from '../../state/tasks/task.ts';
import { readAllTasks, sourceFileOf, taskFilesOf } from '../../state/tasks/task-list.ts';
import { parseChecklist, progress } from '../../workflows/checklist.ts';
import { type Estimate, estimateFromHistory, estimateFromSize, type SizeInput } from './estimate-run.ts';
import { type DamagedFile, damagedRecordFiles, type RunHistory, readWorkspaceRuns } from './run-history.ts';

/** The run about to start, as `ralph run` resolved it. */
export interface RunPlan {
  workspace: string;
  config: RalphConfig;
  /** The backend `cli.backend` resolved to. */
  backend: string;
  prompt: string;
  env: NodeJS.ProcessEnv;
  /** Hears each records file whose damaged lines the history skipped (a reader's notice). */
  onDamaged?: (d: DamagedFile) => void;
}

// The seed 002 plan: its unchecked lines are the work left.
const PLAN_FILE = 'IMPLEMENTATION_PLAN.md';

/**
 * Earlier runs of the same setup: ended by themselves (not running, not interrupted), every
 * iteration on one of the plan's hats (none in solo mode) and backends.
 */
export function sameSetupRuns(runs: readonly RunHistory[], plan: RunPlan): RunHistory[] {
  const hats = Object.keys(plan.config.hats);
  const backends = new Set<string>([
    plan.backend,
    ...plan.config.cli.fallback,
    ...Object.values(plan.config.hats).flatMap((h) => (h.backend ? [h.backend] : [])),
  ]);
  const sameHat = (hat: string | null) =>
    hats.length === 0 ? hat === null : hat !== null && hats.includes(hat);
  return runs.filter(
    (run) =>
      run.stop_reason !== null &&
      run.stop_reason !== 'interrupted' &&
      run.records.every((r) => sameHat(r.hat) && backends.has(r.backend)),
  );
}

/** The open work items the run will see: checklist tasks, open tasks, unchecked plan lines. */
function openItems(plan: RunPlan): { items: number; from: string } {
  const { workspace, config } = plan;
  const checklist = config.completion.checklist;
  const doc = checklist ? readOptional(resolve(workspace, checklist), 'absent') : undefined;
  if (checklist && doc !== undefined) {
    const p = progress(parseChecklist(doc));
    if (p.tasksTotal > 0) return { items: p.tasksTotal - p.tasksDone, from: checklist };
  }
  try {
    const files = taskFilesOf(config.tasks, workspace, ralphPaths(workspace).tasks);
    const open = openTasks(readAllTasks(files)).length;
    const external = sourceFileOf(files);
    const from = external === undefined ? '.ralph/agent/tasks.jsonl' : relative(workspace, external);
    if (open > 0) return { items: open, from };
  } catch {
    // A damaged tasks file: the other sources.
  }
  const planText = readOptional(resolve(workspace, PLAN_FILE), 'absent');
  const unchecked = planText?.split('\n').filter((l) => /^\s*[-*] \[ \]/.test(l)).length ?? 0;
  if (unchecked > 0) return { items: unchecked, from: PLAN_FILE };
  return { items: 0, from: 'the prompt' };
}

/** The estimate for the run `plan` describes: from this workspace's history, else from the work's size. */
export function estimateRun(plan: RunPlan): Estimate {
  const { config } = plan;
  const loop = config.event_loop;
  const limits = {
    max_iterations: loop.max_iterations,
    max_runtime_seconds: loop.max_runtime_seconds,
    max_cost_usd: loop.max_cost_usd,
    max_tokens: loop.max_tokens,
  };
  const runs = readWorkspaceRuns(plan.workspace, readRegistryLines(plan.env));
  for (const d of damagedRecordFiles(runs)) plan.onDamaged?.(d);
  const history = sameSetupRuns(
    runs.filter((r) => r.records.length > 0),
    plan,
  );
  if (history.length > 0) return estimateFromHistory(history, limits);
  const { items, from } = openItems(plan);
  const price = priceOf(config.cli.model);
  const size: SizeInput = {
    items,
    itemsFrom: from,
    hats: Math.max(1, Object.keys(config.hats).length),
    promptBytes: Buffer.byteLength(plan.prompt),
    price:
      price && config.cli.model ? { input: price[0], output: price[1], model: config.cli.model } : undefined,
  };
  return estimateFromSize(size, limits);
}
