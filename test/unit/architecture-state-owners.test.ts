import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopState } from '../../src/state/loop-state.ts';
import type { ParallelState } from '../../src/state/parallel-files.ts';
import { ROOT } from '../helpers/workspace.ts';

// DESIGN.md §3 and STYLE.md 4: each piece of loop state has one owner that alone changes it. The
// parts are the interfaces of src/state/loop-state/shape.ts; this table names each field's owner
// (a file, or a folder ending in `/`), and a file of src/ that assigns to a field it does not own
// fails. Typed as a Record over LoopState's keys, so a new field without an owner fails typecheck.

const SRC = join(ROOT, 'src');

const RUN_RECORD = ['engine/run/run-setup.ts', 'state/loop-state.ts'];
const RUN_STATUS = ['state/loop-state/run-status.ts'];
const LIMITS = ['engine/context/spend-and-limits.ts'];
const IN_FLIGHT = ['state/loop-state/in-flight.ts'];
const EVENT_QUEUE = ['engine/context/event-queue.ts'];
const ITERATION = ['engine/iteration/'];
const HUMAN = ['engine/steering/'];
const ROLLBACK = ['engine/gates/rollback.ts'];
const REPOS = ['engine/repos/'];
const PROGRESS = ['engine/gates/work-progress.ts'];
const WORKFLOW = ['engine/workflow-steps/'];

/** Every field of state.json and the files that may assign to it (everyone else calls them). */
const STATE_OWNERS: Record<keyof LoopState, readonly string[]> = {
  version: RUN_RECORD,
  run_id: RUN_RECORD,
  started_at: RUN_RECORD,
  updated_at: RUN_RECORD,
  pid: RUN_RECORD,
  workspace: RUN_RECORD,
  backend: RUN_RECORD,
  max_iterations: RUN_RECORD,
  events_file: RUN_RECORD,
  log_file: RUN_RECORD,
  status: RUN_STATUS,
  pending_stop: RUN_STATUS,
  stop_reason: RUN_STATUS,
  stop_message: RUN_STATUS,
  exit_code: RUN_STATUS,
  iterations: LIMITS,
  consecutive_failures: LIMITS,
  cost_usd: LIMITS,
  tokens: LIMITS,
  elapsed_ms: LIMITS,
  parked: LIMITS,
  parks: LIMITS,
  limit_warnings: LIMITS,
  usage_samples: LIMITS,
  current: IN_FLIGHT,
  pending_events: EVENT_QUEUE,
  events_offset: EVENT_QUEUE,
  malformed_streak: EVENT_QUEUE,
  seen_topics: EVENT_QUEUE,
  idle: EVENT_QUEUE,
  idle_next_scan_at: EVENT_QUEUE,
  hat_activations: ITERATION,
  recoveries: ITERATION,
  last_signature: ITERATION,
  signature_repeats: ITERATION,
  last_record: ITERATION,
  feedback: ITERATION,
  ladder: ['engine/iteration/model-rung.ts'],
  cost_by_model: ['engine/iteration/model-rung.ts'],
  fallback: ['engine/iteration/backend-fallback.ts'],
  control: HUMAN,
  guidance: HUMAN,
  paused: HUMAN,
  stop_requested: HUMAN,
  waiting_for: HUMAN,
  held_question: HUMAN,
  human_timeout: HUMAN,
  uncommitted_changes: HUMAN,
  last_green: ROLLBACK,
  rollback: ROLLBACK,
  repo_heads: REPOS,
  progress_marks: PROGRESS,
  did_work: PROGRESS,
  no_progress_streak: PROGRESS,
  protected: ['engine/gates/protect-gate.ts'],
  git_config: ['engine/gates/git-config-gate.ts'],
  review: ['engine/gates/review-gate.ts'],
  checklist: WORKFLOW,
  start_milestone: WORKFLOW,
  start_progress: WORKFLOW,
  tdd: WORKFLOW,
  metric: ['engine/metric/'],
  forge: ['engine/workflow-steps/milestone-prs.ts'],
};

/** `ralph run --parallel`'s own state.json (a ParallelState, also called `state` there): its coordinator's. */
const PARALLEL = ['parallel/', 'state/parallel-files.ts'];
const PARALLEL_OWNERS: Record<keyof ParallelState, readonly string[]> = {
  version: PARALLEL,
  id: PARALLEL,
  target: PARALLEL,
  workers: PARALLEL,
  source: PARALLEL,
  started_at: PARALLEL,
  updated_at: PARALLEL,
  runtime_ms: PARALLEL,
  tasks: PARALLEL,
  queue: PARALLEL,
  status: PARALLEL,
  stop_reason: PARALLEL,
  control: PARALLEL,
};

/** Writes of the whole state at once (`Object.assign(state, …)`): putting back what was last saved. */
const WHOLE_STATE = ['engine/context/run-context.ts'];

/**
 * Assignments to a field of `state` (`state.F =`, `ctx.state.F.x +=`, `state.F[k] ??=`, `state.F++`,
 * `state.F.push(`), `delete state.F` and `Object.assign(state, …)`: the field each writes (`*`: all).
 */
const WRITE =
  /\bstate((?:\.[A-Za-z_$][\w$]*|\[[^\]\n]*\])+)\s*(?:=(?![=>])|\+=|-=|\*=|\?\?=|\|\|=|&&=|\+\+|--|\.(?:push|splice|unshift|pop|shift|sort|reverse)\()|\bdelete\s+(?:[\w$]+\.)*state\.([\w$]+)|\bObject\.assign\(\s*(?:[\w$]+\.)*state\b/g;

function writtenFields(text: string): string[] {
  return [...text.matchAll(WRITE)].map((m) =>
    m[1] ? (/^\.([\w$]+)/.exec(m[1])?.[1] ?? '*') : (m[2] ?? '*'),
  );
}

const owns = (owners: readonly string[] | undefined, file: string) =>
  owners?.some((o) => (o.endsWith('/') ? file.startsWith(o) : file === o)) === true;

/** Every write into a field by a file that does not own it, as `file: field`. */
function foreignStateWrites(sources: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of sources)
    for (const field of writtenFields(text)) {
      const allowed =
        field === '*'
          ? owns(WHOLE_STATE, file)
          : owns((STATE_OWNERS as Record<string, readonly string[]>)[field], file) ||
            owns((PARALLEL_OWNERS as Record<string, readonly string[]>)[field], file);
      if (!allowed) out.push(`${file}: ${field}`);
    }
  return out;
}

function sourcesOf(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourcesOf(path, out);
    else if (name.endsWith('.ts'))
      out.set(relative(SRC, path).split(sep).join('/'), readFileSync(path, 'utf8'));
  }
  return out;
}

describe('each piece of loop state has one owner (DESIGN.md §3)', () => {
  it('no file of src/ assigns to a field of the loop state another domain owns', () => {
    expect(foreignStateWrites(sourcesOf(SRC))).toEqual([]);
  });

  it('names owners that exist', () => {
    const owners = new Set([...Object.values(STATE_OWNERS), PARALLEL, WHOLE_STATE].flat());
    expect([...owners].filter((o) => !existsSync(join(SRC, o)))).toEqual([]);
  });

  it("would catch a planted write into another domain's part, in every form", () => {
    const planted = new Map([
      ['engine/gates/planted.ts', 'state.cost_usd += run.spent;\nctx.state.status = "paused";'],
      ['engine/steering/planted.ts', 'ctx.state.pending_events.push(e);\nstate.tdd.report_misses = 0;'],
      [
        'engine/run/planted.ts',
        'delete state.rollback;\nstate.hat_activations[hat] ??= 0;\nstate.iterations++;',
      ],
      ['engine/iteration/planted.ts', 'Object.assign(ctx.state, saved);\nstate.current =\n  null;'],
      ['parallel/planted.ts', 'state.guidance = [];'],
    ]);
    expect(foreignStateWrites(planted)).toEqual([
      'engine/gates/planted.ts: cost_usd',
      'engine/gates/planted.ts: status',
      'engine/steering/planted.ts: pending_events',
      'engine/steering/planted.ts: tdd',
      'engine/run/planted.ts: rollback',
      'engine/run/planted.ts: hat_activations',
      'engine/run/planted.ts: iterations',
      'engine/iteration/planted.ts: *',
      'engine/iteration/planted.ts: current',
      'parallel/planted.ts: guidance',
    ]);
  });

  it('lets an owner write its own part, and reads pass', () => {
    const owned = new Map([
      ['engine/context/spend-and-limits.ts', 'state.cost_usd += costUsd;\nstate.iterations = n;'],
      ['engine/steering/control-inbox.ts', 'state.stop_requested = true;'],
      [
        'engine/gates/planted.ts',
        'if (state.status === "running" && state.idle == false) use(state.tokens);',
      ],
      ['parallel/planted.ts', 'state.queue.push(id);\nstate.stop_reason = reason;'],
    ]);
    expect(foreignStateWrites(owned)).toEqual([]);
  });
});
