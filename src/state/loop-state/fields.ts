/** An event waiting to be routed (kept in state.json). `source` says who published it (agent, tag, starting_event, …). */
export interface PendingEvent {
  topic: string;
  payload: unknown;
  source: string;
  iteration: number | null;
}

/** Lifecycle of a run recorded in state.json. */
export type RunStatus =
  /** A loop is (or was, if it crashed) running this run. */
  | 'running'
  /** Ctrl-C: the interrupted iteration re-runs on --resume. */
  | 'interrupted'
  /** Stopped by a limit, failures, or `ralph stop`: can be continued with --resume. */
  | 'stopped'
  | 'completed'
  /** Live states of a running loop (DESIGN.md §5): `ralph pause`, a rate/usage limit, a question, persistent idle. */
  | 'paused'
  | 'parked'
  | 'waiting_for_human'
  | 'idle'
  /** forge.wait_for_merge: a milestone's pull request is ready; the loop waits for its merge. */
  | 'waiting_for_merge';

/** Every RunStatus, in the order state.json's check names them (a record, so none can be missing). */
const STATUS_SET: Record<RunStatus, true> = {
  running: true,
  interrupted: true,
  stopped: true,
  completed: true,
  paused: true,
  parked: true,
  waiting_for_human: true,
  idle: true,
  waiting_for_merge: true,
};
export const RUN_STATUSES = Object.keys(STATUS_SET) as RunStatus[];

/** The statuses of a loop that is running (or crashed while running). */
export const LIVE_STATUSES: readonly RunStatus[] = [
  'running',
  'paused',
  'parked',
  'waiting_for_human',
  'idle',
  'waiting_for_merge',
];

/** Guidance (`ralph tell`) or a human's answer waiting for the next prompt. */
export interface QueuedGuidance {
  id: string;
  /** `ralph tell`, a human's answer to `human.interact`, or a rejected approval's reason. */
  kind: 'guidance' | 'answer' | 'rejection';
  text: string;
  source: string;
}

/** The iteration in progress; kept until it finishes so a crashed run re-runs it. */
export interface CurrentIteration {
  number: number;
  hat: string | null;
  started_at: string;
  /** Agent process (= process group) id and its /proc start time, to kill a crashed run's agent. */
  agent_pid: number | null;
  agent_start_time: string | null;
  /** HEAD when the iteration's first try started: a re-run after a crash starts from there (its commit is the candidate). */
  head_before?: string | null;
}

/**
 * A question or review point that a stop or Ctrl-C left unanswered. It stays open in
 * `control/questions.jsonl`, and `--resume` waits for it again (same id) before anything else.
 */
export interface HeldQuestion {
  id: string;
  /** The review point (`gates.approval`) that waits, or null for a question (`human.interact`). */
  point: 'before_commit' | 'before_push' | 'before_complete' | null;
  iteration: number;
  /** How the run completes once the point is passed (null: the iteration did not complete). */
  completes: string | null;
  /** `before_commit`: what is committed once a human approves (then validate and push follow). */
  commit: HeldCommit | null;
  /** repos, `before_push`: the repositories whose commits are pushed once a human approves. */
  repos?: string[];
}

/** What Ralph commits for an iteration (`git.commit`). */
export interface HeldCommit {
  hat: string | null;
  backend: string;
  /** The agent's final text: the commit message's summary. */
  summary: string;
  /** HEAD before the iteration, to list the files it changed. */
  before: string | null;
  /** The tests gate's line in the message (`passing`, `failing (exit 1)`), or null. */
  tests: string | null;
  /** repos: each changed repository's tests line (its name → the line); they commit separately. */
  repo_tests?: Record<string, string | null>;
}

/** One result of the metric loop: its repeats, median and spread, where and when (iteration 0: the baseline). */
export interface MetricResult {
  iteration: number;
  commit: string | null;
  values: number[];
  value: number;
  spread: number;
}

/** An attempt the next prompt recalls: its idea and what came of it. */
export interface MetricNote {
  iteration: number;
  idea: string;
  value: number | null;
  why: string;
}

/** `metric`: the baseline, the best result, the attempts not kept in a row, recent kept and failed ideas (bounded). */
export interface MetricProgress {
  baseline: MetricResult;
  best: MetricResult;
  not_kept_streak: number;
  kept: MetricNote[];
  failed: MetricNote[];
}

/** One repository's part of a rollback: the workspace's (`repo` null) or one of `repos`'. */
export interface RollbackTree {
  /** The repository's name in `repos`; null for the workspace. */
  repo: string | null;
  /** The commit its work tree returns to. */
  to: string;
  /** Why, for the rescue commit's message and the next prompt. */
  why: string;
  /** The rescue ref holds its changes. */
  rescued: boolean;
}

/**
 * An iteration's changes being set aside (gates.on_failure: rollback, rules, metric), saved with its
 * record before anything is set aside: each repository it changed (a workspace run: one) keeps its
 * part in `ref` and returns to `to`; a finished one leaves `trees`, so --resume finishes the others.
 */
export interface PendingRollback {
  iteration: number;
  /** `refs/ralph/rescue/<run>/<iteration>`, in each repository. */
  ref: string;
  trees: RollbackTree[];
}

/** Where a model ladder (`cli.models`) stands for one task, milestone or run (docs/concepts/models.md). */
export interface LadderRung {
  /** Index into the ladder's models: the next iteration's model. */
  rung: number;
  /** Failed iterations in a row on this rung. */
  failures: number;
  /** Clean iterations in a row on this rung. */
  successes: number;
  /** Why the ladder is on this rung (null: it starts there). */
  reason: string | null;
}

/** A pull request Ralph opened (or adopted) for a milestone (`forge.pull_requests: per_milestone`). */
export interface MilestonePr {
  milestone: string;
  /** `ralph/<milestone-slug>`. */
  branch: string;
  /** The branch it merges into: the target, or the previous milestone's branch (multi-PR mode). */
  base: string;
  number: number;
  /** GraphQL node id (marking a draft ready needs it). */
  node_id: string;
  url: string;
  status: 'draft' | 'open' | 'ready' | 'merged' | 'closed';
}

/** The forge's bookkeeping of a checklist run: milestone branches and their pull requests. */
export interface ForgeState {
  /** The branch the first milestone started from, where merged milestones land. */
  target: string;
  /** The milestone being worked on and its branch; null between milestones. */
  active: { milestone: string; branch: string; base: string } | null;
  prs: MilestonePr[];
  /** The pull request the loop waits to be merged (`forge.wait_for_merge`), or null. */
  waiting: number | null;
  /** The last merged pull request: the next milestone starts from the updated target. */
  merged_target?: boolean;
}
