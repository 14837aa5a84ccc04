// biome-ignore-all assist/source/organizeImports: grouped by tier, in the order docs/reference/api.md reads
// Ralph as a library (package `ralph-harness`), in three tiers: run a loop, observe it, control and
// inspect it; then its errors and the config helpers an embedder needs. docs/reference/api.md documents each
// export and test/unit/public-api.test.ts lists them, so an export is added here on purpose. The
// parsers, the supervisor, prompt assembly and the run log are internals: not exported.

// ── Tier 1, run: resolve a run as `ralph run` does, then run its loop (in a worktree of its own if
// asked), or a parallel run.
export { resolveRun } from './engine/run/resolve-run.ts';
export type { ResolvedRun, ResolveRunOptions } from './engine/run/run-inputs.ts';
export type { PromptChoice } from './config/run-config.ts';
export { resolveRunCached } from './engine/run/resolve-run-cached.ts';
export { newRunId } from './engine/run/run-setup.ts';
export { planFirstIteration } from './engine/run/first-iteration.ts';
export { earlierChecklistRun, refuseUnaskedChecklistRestart } from './engine/run/start-mode.ts';
export { refuseUnsupportedWithRepos } from './engine/readiness/repo-set.ts';
export { runLoop } from './engine/run/loop.ts';
export type {
  AfterIteration,
  RequestedStop,
  RunLoopOptions,
  StartMode,
} from './engine/context/run-options.ts';
export type { LoopSummary } from './engine/run/loop-summary.ts';
export { type PreparedWorktree, prepareWorktree } from './parallel/worktrees.ts';
export { runParallel } from './parallel/coordinator.ts';
export type { ParallelOptions, ParallelResult } from './parallel/coordination.ts';
export type { ParallelState, ParallelTask, ParallelTaskState } from './state/parallel-files.ts';

// ── Tier 2, observe: the one typed event stream (a named type per event), its reporters, its words.
export type { LoopEvent, LoopEventType } from './observe/events.ts';
export type {
  ControlReceivedEvent,
  HumanAnsweredEvent,
  HumanProgressEvent,
  HumanQuestionEvent,
  LoopIdleEvent,
  LoopParkedEvent,
  LoopPausedEvent,
  LoopResumedEvent,
  LoopWokeEvent,
} from './observe/events/control-events.ts';
export type {
  GateFinishedEvent,
  GateOutputEvent,
  GateStartedEvent,
  GitCommittedEvent,
  GitPushedEvent,
  ReviewFinishedEvent,
} from './observe/events/gate-events.ts';
export type {
  AgentEventEvent,
  AgentHeartbeatEvent,
  AgentOutputEvent,
  AgentSpawnedEvent,
  CompletionDecidedEvent,
  EventMalformedEvent,
  EventPublishedEvent,
  HatActivatedEvent,
  IterationFinishedEvent,
  IterationStartedEvent,
  PromptAssembledEvent,
} from './observe/events/iteration-events.ts';
export type {
  LimitWarningEvent,
  LoopFinishedEvent,
  LoopStartedEvent,
  NoticeEvent,
  PreflightEvent,
  StopReason,
} from './observe/events/run-events.ts';
export type { AgentEvent, Usage } from './backends/types.ts';
export type { GateSummary, IterationRecord, TokenTotals } from './state/iteration-record-shape.ts';
export type { ChecklistProgress } from './workflows/checklist.ts';
export type {
  MergeConflictEvent,
  MergeGatesEvent,
  MergeMergedEvent,
  MergePullRequestEvent,
  MergeStartedEvent,
  ParallelEvent,
  ParallelEventType,
  ParallelFinishedEvent,
  ParallelLimitEvent,
  ParallelReporter,
  ParallelStartedEvent,
  TaskStateEvent,
  WorkerFinishedEvent,
  WorkersProgressEvent,
  WorkerStartedEvent,
  WorkerView,
} from './observe/parallel-events.ts';
export type { Reporter } from './observe/reporter.ts';
export {
  type ConsoleReporterOptions,
  createConsoleReporter,
  type Verbosity,
} from './observe/reporters/console-reporter.ts';
export { describeEvent, describeWorker } from './observe/describe-event.ts';
export { type Dashboard, type DashboardOptions, startDashboard } from './dashboard/server.ts';

// ── Tier 3, control and inspect: steer a running loop through its inbox; read where it stands.
export {
  type AnswerReceipt,
  answer,
  approve,
  type ControlReceipt,
  type ControlTarget,
  controlledWorkspace,
  pause,
  reject,
  resume,
  stop,
  tell,
} from './human/control.ts';
export type { ControlSource, InboxCommand, InboxKind, QuestionRecord } from './human/control-files.ts';
export { type RunStatus, readStatus } from './human/read-status.ts';
export type { LockInfo } from './state/io/lock-holder.ts';
export type { LoopState, LoopStatusView } from './human/status-view.ts';
export { type EventLine, type ReadEventsOptions, readEvents } from './state/events-log.ts';

// ── Tier 4, set up and look back: what `ralph init`, `new`, `doctor`, `config explain`, `stats`,
// `estimate`, `explain`, `runs`, `rescue`, `worktrees` and `ask` do, as functions.
export { findPreset, PRESETS } from './config/presets.ts';
export { enableSandbox, initPreset } from './config/preset-init.ts';
export { detectPeerProject, type InitFromResult, initFrom } from './config/migrate/init-from.ts';
export {
  describeLine,
  type Migration,
  type MigrationLine,
  PEERS,
  type Peer,
} from './config/migrate/peer-mappings.ts';
export { findTemplate, type ProjectTemplate, templateList, writeTemplate } from './config/templates.ts';
export { type DoctorProbe, probeAgent, probeFailure } from './engine/readiness/agent-probe.ts';
export {
  assessReadiness,
  type BackendRow,
  type Readiness,
  type ReadinessConfig,
  type ReadinessInput,
} from './engine/readiness/readiness.ts';
export { type LoadedRun, resolveRunConfig, resolveRunLoaded } from './engine/run/resolve-run.ts';
export { type ExplainedKey, explainConfig, sourceOf } from './config/config-explain.ts';
export { type History, readHistory } from './observe/stats/run-history.ts';
export { aggregateStats, type GroupStats, parseSince, type Stats } from './observe/stats/aggregate-stats.ts';
export { estimateRun, type RunPlan } from './observe/stats/estimate-inputs.ts';
export type { Estimate, LimitVerdict, Range } from './observe/stats/estimate-run.ts';
export { type RecordsRead, readRecords, recordsFileOf } from './state/records-file.ts';
export { listRuns, type RunSummary } from './dashboard/run-data.ts';
export { applyRescue, listRescues, RESCUE_PREFIX, type RescueEntry, showRescue } from './git/rescue-refs.ts';
export { cleanWorktrees, DEFAULT_WORKTREE, listWorktrees, repoRoot } from './parallel/worktrees.ts';
export { ask } from './human/ask.ts';
export {
  MAX_PROGRESS_CHARS,
  type ProgressNote,
  type ProgressReceipt,
  sendProgressNote,
} from './human/progress-notes.ts';
export { damagedQuestionLines, openQuestions } from './human/control-files.ts';
export {
  DEFAULT_PLAN_PROMPT,
  projectRootOf,
  type RalphPaths,
  ralphPaths,
  RUNTIME_PATHS,
} from './state/paths.ts';
export { humanStatus } from './human/status-lines.ts';
export {
  coordinatorPid,
  type ParallelPaths,
  parallelPaths,
  readParallelState,
  repoTopOf,
  workerWorkspace,
} from './state/parallel-files.ts';
export { damagedRegistryLines, pruneRegistry, registryFile, userStateDir } from './state/run-registry.ts';
export { ensureRuntimeIgnored } from './state/runtime-ignore.ts';
export {
  configJsonSchema,
  WORKSPACE_SCHEMA_PATH,
  withSchemaModeline,
} from './config/reference/json-schema.ts';
export { checkBackend, setBackend } from './config/preset-init.ts';
export { findConfigFile } from './config/run-config.ts';
export { describeAgent, installHint, knownBackends } from './backends/registry.ts';
export { preflight } from './engine/readiness/preflight.ts';
export type { HookProblem, HooksCheck } from './engine/hooks/check-hooks.ts';
export { checkHooks } from './engine/hooks/validate-hooks.ts';
export type { RunSandboxFacts } from './engine/readiness/sandbox-input.ts';
export { describeRunSandbox, runSandboxFacts } from './engine/readiness/sandbox-input.ts';
export { type SandboxReport, sandboxReport } from './engine/readiness/sandbox-report.ts';
export { refuseChangedGitConfig } from './engine/gates/git-config-gate.ts';
export { isGitRepo } from './git/repo-state.ts';
export { describeImport, importGithubIssues } from './engine/workflow-steps/issue-tasks.ts';
export { openTaskStore, type TaskStore } from './state/tasks/task-store.ts';
export { findTask, readyTasks, TASK_STATUSES, type Task, type TaskOptions } from './state/tasks/task.ts';
export { openMemoryStore, type MemoryStore } from './state/memories/memory-store.ts';
export { MEMORY_TYPES, type MemoryEntry } from './state/memories/memory.ts';
export { skillDirs } from './skills/skill-dirs.ts';
export { findSkill, loadSkills, type Skill, skillText } from './skills/skill-registry.ts';

// ── Errors: a stable `code` (RalphErrorCode) to switch on, and the exit code `ralph` maps it to.
export {
  ConfigError,
  type ConfigIssue,
  ExitCode,
  type ExitCodeValue,
  FileSystemError,
  fileSystemError,
  LockHeldError,
  RALPH_ERROR_CODES,
  RalphError,
  type RalphErrorCode,
  UnfinishedRunError,
  UsageError,
} from './errors.ts';

// ── Config helpers: load and validate a ralph.yml and build its backend, without resolveRun.
export { type LoadedConfig, loadConfig } from './config/load-config.ts';
export { configSchema, type HatConfig, type RalphConfig } from './config/schema.ts';
export { type BackendName, INTERACTIVE_BACKEND_NAMES } from './config/schema/backend-names.ts';
export { type ConfigOverride, parseSetOverride } from './config/overrides.ts';
export { interactiveInvocation, resolveBackend } from './backends/registry.ts';
export type { InteractiveInvocation } from './backends/definition.ts';
export type { AgentInvocation, Backend, ExitClass } from './backends/types.ts';

// ── Fleet and the commands' building blocks: the fleet's job engine, and the one gate runner, git
// runner, agent environment, demo and worker spec that `ralph new`, `plan`, `demo`, `dashboard` and
// `parallel-worker` are made of.
export { loadFleetEngine, openFleet } from './fleet/open-fleet.ts';
export type { FleetJobSpec, FleetRunInfo, JobEngine } from './fleet/job-engine.ts';
export { checkpointState } from './fleet/checkpoint-files.ts';
export { FINAL_STATES } from './fleet/run-record.ts';
export { safeRedisUrl } from './fleet/fleet-errors.ts';
export { runFleetJob } from './fleet/run-job.ts';
export type { FleetSource } from './dashboard/fleet-section.ts';
export { allowHostName } from './dashboard/security.ts';
export { tokenFromFile } from './dashboard/token-file.ts';
export { createDemoWorkspace, DEMO_OVERRIDES } from './demo/demo-workspace.ts';
export { readWorkerSpec, WORKER_SECRETS_ENV } from './parallel/worker-spec.ts';
export { agentEnvBase, buildBaseAgentEnv } from './agent/agent-env.ts';
export { runGate } from './engine/gates/checks/run-gate.ts';
export { commitAll } from './git/commit.ts';
export { runGit, runGitRaw } from './git/run-git.ts';

// ── The single mechanisms the commands share: redaction, secret masking, the JSON-lines reader and
// follower, the durable append, the events file, the loop lock's holder, the package, the platform
// check, executable lookup, shell quoting, the closest-key suggestion and two defaults.
export { createRedactor, redactDeep } from './observe/redact.ts';
export { maskSecrets, secretPaths, secretValues } from './observe/config-secrets.ts';
export {
  followFile,
  followJsonl,
  MAX_JSON_DEPTH,
  nestedDeeper,
  poll,
  readTextSince,
  skippedNotice,
} from './state/io/jsonl.ts';
export { appendLine } from './state/io/append-line.ts';
export { eventLineParser, eventsFileOf, readEventsSince } from './state/events-log.ts';
export { workspaceLockHolder } from './state/workspace-lock.ts';
export { packageVersion, RALPH_BIN, RALPH_BIN_DIR } from './paths-package.ts';
export { unsupportedPlatform } from './process/platform.ts';
export { findExecutable } from './process/find-executable.ts';
export { shellCommand } from './process/shell-quote.ts';
export type { DebugEvent, DebugSink } from './process/debug-trace.ts';
export { setDebugSink } from './process/debug-trace.ts';
export { closestMatch } from './config/suggest.ts';
export { renderHatGraph } from './routing/hat-graph.ts';
export { DEFAULT_HUMAN_ANSWER, REDIS_URL } from './config/schema/operations-values.ts';

// ── The sandbox of `sandbox: on` (docs/guide/sandbox.md): its one policy, shown and enforced alike.
export { accessOf, describePolicy, sandboxPolicy } from './sandbox/sandbox-policy.ts';
export { type WrapOptions, wrapCommand } from './sandbox/wrap-command.ts';
export { probeSandbox, type SandboxProbeDeps } from './sandbox/probe.ts';
export { explainDenials } from './sandbox/denials.ts';
export {
  type SandboxAccess,
  type SandboxDenial,
  type SandboxMode,
  type SandboxPolicy,
  type SandboxPolicyInput,
  type SandboxProbe,
  type SandboxRule,
  type SandboxSettings,
  sandboxSettings,
  type WrappedCommand,
} from './sandbox/sandbox-types.ts';
