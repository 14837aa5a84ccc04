/** What `.ralph/runs/<run-id>/iterations.jsonl` records per iteration (a contract, DESIGN.md §1). */
// Its one check, which every reader applies, is recordLine in state/records-file.ts.

/** Token totals as recorded in state, records and summaries. */
export interface TokenTotals {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  total: number;
}

/** A gate's result as recorded per iteration. */
export interface GateSummary {
  command: string;
  passed: boolean;
  exit_code: number | null;
  timed_out: boolean;
  duration_ms: number;
  /** Tests gate: the total line coverage of the summary the run left (coverage-summary.json, coverage.py JSON, lcov). */
  coverage?: { pct: number; source: string };
}

/** The tests gate as recorded: which suite ran (gates.tests.affected), on which files, and why. */
export interface TestsGateSummary extends GateSummary {
  /** `full`: gates.tests.command; `affected`: gates.tests.affected with the changed files. */
  scope: 'full' | 'affected';
  /** affected: the changed files the command was given. */
  files?: string[];
  /** full although gates.tests.affected is set: why (completion requested, full_every, …). */
  why?: string;
}

/** The decisions of one iteration, with the values they were made on. */
export interface IterationDecision {
  route: {
    hat: string | null;
    backend: string;
    triggered_by: string[];
    /** A model ladder (`cli.models`): the model it ran on, its rung (1-based) of how many, for what, and why. */
    model?: { name: string; rung: number; rungs: number; scope: string; reason: string };
  };
  /** Null when the iteration did not ask to complete. */
  completion: { accepted: boolean; reasons: string[] } | null;
  gates: { validate?: boolean; tests?: boolean };
  /** Each limit: used and its maximum (null: none). */
  limits: {
    iterations: { used: number; max: number };
    runtime_ms: { used: number; max: number | null };
    cost_usd: { used: number; max: number | null };
    tokens: { used: number; max: number | null };
    consecutive_failures: { used: number; max: number };
  };
  /** The stop this iteration decided, if any. */
  stop: { reason: string; message: string } | null;
}

/** repos: one repository an iteration changed, what Ralph did with it. */
export interface RepoRecord {
  name: string;
  /** As ralph.yml writes it. */
  path: string;
  /** Files changed in it (committed by the agent, or left for Ralph's commit). */
  files: string[];
  /** The commit Ralph made there (git.commit), if any. */
  commit: string | null;
  /** Its tests gate (`repos[].gates.tests`, else `gates.tests`). */
  gates: { tests?: TestsGateSummary };
  /** git.push failed there: the error. */
  push_error?: string;
  /** gates.on_failure: rollback — where its changes are kept and the commit it went back to. */
  rollback?: { ref: string; to: string };
}

/** An agent wave's iteration: how many members ran at once, and each member's end. */
export interface WaveRecord {
  concurrency: number;
  members: WaveMemberRecord[];
}

/** One member of a wave: its event, how it ended, what it used and what it published. */
export interface WaveMemberRecord {
  index: number;
  topic: string;
  /** success | failure */
  verdict: string;
  reason: string | null;
  exit_code: number | null;
  killed_by: string | null;
  duration_ms: number;
  tokens: number;
  cost_usd: number | null;
  events: string[];
}

/** A write or read `sandbox: on` refused: the path, the rule's path, and why the rule is there. */
export interface SandboxDenialRecord {
  path: string;
  rule: string;
  reason: string;
}

/** One line of `.ralph/runs/<run-id>/iterations.jsonl`. */
export interface IterationRecord {
  run_id: string;
  iteration: number;
  hat: string | null;
  backend: string;
  /** The executable that ran (`claude`, `./agent.sh`); absent in records written before it was kept. */
  command?: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  exit_code: number | null;
  signal: string | null;
  killed_by: string | null;
  tokens: TokenTotals;
  cost_usd: number | null;
  /** The CLI reported no cost: cost_usd is estimated from the tokens and the model's list price. */
  cost_estimated?: boolean;
  context_pct: number | null;
  model: string | null;
  head_before: string | null;
  head_after: string | null;
  /** Topics the agent published in this iteration. */
  events: string[];
  /** Files the iteration changed (git repositories only). */
  files_changed: string[] | null;
  /** The commit Ralph made for it (git.commit), if any. */
  commit: string | null;
  /** Gate results: validate hook and tests. */
  gates: { validate?: GateSummary; tests?: TestsGateSummary };
  /** gates.tests.affected ran no test, and why: `affected: skipped, no changes`. */
  tests_skipped?: string;
  /** complete | success | failure | gate_tampered | rule_violation | limit | aborted | parked | idle (persistent mode: nothing to do, waiting) */
  verdict: string;
  reason: string | null;
  consecutive_failures: number;
  /** Processes the iteration left running that Ralph killed at its end (the agent itself excluded). */
  killed_processes: { pid: number; command: string }[];
  /** A failed run: the agent's last stderr lines (redacted). */
  stderr_tail?: string;
  /** TDD loop: report sections missing, files changed outside tdd.allowed_paths. */
  report_missing?: string[];
  scope_violations?: string[];
  /** Ids of the human guidance (`ralph tell`) and answers this iteration's prompt carried. */
  guidance?: string[];
  /** Ids of the questions the agent asked (`ralph ask`) during the iteration. */
  questions?: string[];
  /** cli.fallback: the backend this iteration ran on instead of the parked primary. */
  fallback_from?: string;
  /** gates.review after this iteration: the verdict, the findings and the review's own usage. */
  review?: { approved: boolean; findings: string[]; round: number; cost_usd: number; tokens: number };
  /** gates.on_failure: rollback — where its changes are kept and the commit the tree went back to. */
  rollback?: { ref: string; to: string };
  /** Program-running keys of the repository's git config the iteration changed (put back): verdict gate_tampered. */
  git_config?: string[];
  /** Protected files (gates.protect, and `.git/info/exclude`) the iteration changed: verdict gate_tampered. */
  tampered?: string[];
  /** Files the agent hid from git (skip-worktree, assume-unchanged) whose bits Ralph cleared, from the repository's top. */
  index_flags_cleared?: string[];
  /** What the iteration moved (no-progress rule): files (null: unknown), commit, tasks, events. */
  progress?: { files: boolean | null; commit: boolean; tasks: boolean; events: boolean };
  /** Why the loop did what it did after this iteration (`ralph explain` prints it). */
  decision?: IterationDecision;
  /** forge.pull_requests: the milestone's pull request after this iteration (opened, updated or marked ready). */
  pull_request?: { number: number; url: string; status: string; milestone: string };
  /** repos: the repositories this iteration changed, each with its commit and gate result. */
  repos?: RepoRecord[];
  /** `sandbox: on`: the writes and reads the sandbox refused, each with the rule that refused it (its path and why). */
  sandbox?: { mode: string; denials: SandboxDenialRecord[] };
  /** Agent waves: each member of the wave this iteration ran (docs/guide/agent-waves.md). */
  wave?: WaveRecord;
  /** Review points a human settled for this iteration (`gates.approval`). */
  approvals?: { point: string; id: string; answer: string; by: string; reason?: string }[];
}
