// Ralph as a library: the engine, its contracts and its building blocks. The CLI in src/cli/ is a
// thin adapter over these exports.

export {
  createStreamJsonParser,
  createTextParser,
  parseStreamJsonObject,
} from './backends/parsers/stream-json.ts';
export { resolveBackend } from './backends/registry.ts';
export type {
  AgentEvent,
  AgentInvocation,
  Backend,
  InvocationContext,
  OutputParser,
  Usage,
} from './backends/types.ts';
export { loadConfig, parseConfigText } from './config/load-config.ts';
export { applyOverrides, type ConfigOverride, parseSetOverride } from './config/overrides.ts';
/** The prompt of a run: its text, or a file to read (relative to the workspace). */
export type { PromptChoice } from './config/run-config.ts';
export {
  BACKEND_NAMES,
  type BackendName,
  configSchema,
  type HatConfig,
  type RalphConfig,
} from './config/schema.ts';
export { createDemoWorkspace } from './demo/demo-workspace.ts';
export type { StartMode } from './engine/context/run-context.ts';
export { promiseFulfilled } from './engine/decide/completion.ts';
export {
  type Counters,
  judgeIteration,
  type Limits,
  limitReached,
  type Stop,
} from './engine/decide/limits.ts';
export { limitsOf, type RunLoopOptions, runLoop } from './engine/run/loop.ts';
export type { LoopSummary } from './engine/run/loop-summary.ts';
// Tier "run": what `ralph run` resolves before its loop starts, for runLoop.
/**
 * Resolves a run as `ralph run` does: config discovery (`configPath` or ralph.yml), the layers (user
 * config, project file, preset), `RALPH_AGENT`, the overrides, `cli.backend: auto`, the prompt
 * choice and the backend. Throws a RalphError that says what to fix.
 */
export { type ResolvedRun, type ResolveRunOptions, resolveRun } from './engine/run/resolve-run.ts';
export * from './errors.ts';
export { RALPH_ERROR_CODES, type RalphErrorCode } from './errors.ts';
// The control tier: steer a running loop through its inbox (DESIGN.md §5 "One control channel").
export {
  type AnswerReceipt,
  answer,
  approve,
  type ControlReceipt,
  type ControlTarget,
  pause,
  reject,
  resume,
  stop,
  tell,
} from './human/control.ts';
export type { ControlSource, InboxCommand, QuestionRecord } from './human/control-files.ts';
/** Inspect: where a workspace's loop stands, as `ralph status` reads it (state.json, the lock's live holder, a pending stop, the last event). */
export { type RunStatus, readStatus } from './human/read-status.ts';
export { describeEvent } from './observe/describe-event.ts';
export type {
  AgentEventEvent,
  AgentHeartbeatEvent,
  AgentOutputEvent,
  AgentSpawnedEvent,
  CompletionDecidedEvent,
  ControlReceivedEvent,
  EventMalformedEvent,
  EventPublishedEvent,
  GateFinishedEvent,
  GateOutputEvent,
  GateStartedEvent,
  GitCommittedEvent,
  GitPushedEvent,
  HatActivatedEvent,
  HumanAnsweredEvent,
  HumanQuestionEvent,
  IterationFinishedEvent,
  IterationStartedEvent,
  LimitWarningEvent,
  LoopEvent,
  LoopEventType,
  LoopFinishedEvent,
  LoopIdleEvent,
  LoopParkedEvent,
  LoopPausedEvent,
  LoopResumedEvent,
  LoopStartedEvent,
  LoopWokeEvent,
  NoticeEvent,
  PreflightEvent,
  PromptAssembledEvent,
  ReviewFinishedEvent,
  StopReason,
} from './observe/events.ts';
export type { GateSummary, IterationRecord, TokenTotals } from './observe/iteration-record.ts';
export type { Reporter } from './observe/reporter.ts';
/**
 * Observe a run: `runLoop({ reporters })` calls each `Reporter` with every `LoopEvent` (a named type
 * per event kind, e.g. `IterationStartedEvent`; the JSON of `.ralph/runs/<id>/stream.jsonl`), on top
 * of the reporters every run has (run log, stream file, diagnostics, notifications, run registry).
 * `createConsoleReporter` prints what `ralph run` prints; `describeEvent` gives any event as the
 * one line of text the console, the logs, fleet and parallel lines and the dashboard share.
 */
export {
  type ConsoleReporterOptions,
  createConsoleReporter,
  type Verbosity,
} from './observe/reporters/console-reporter.ts';
export { createRunLogSink } from './observe/reporters/run-log.ts';
export { type SuperviseOptions, type SuperviseResult, supervise } from './process/supervisor.ts';
export { assemblePrompt, type PromptInput } from './routing/prompt.ts';
/** Inspect: a run's events (`.ralph/current-events`) as `ralph events` reads them, oldest first; `{ follow: true, signal }` keeps following. */
export { type EventLine, type ReadEventsOptions, readEvents } from './state/events-log.ts';
export { type LoopState, readLoopState } from './state/loop-state.ts';
export { ralphPaths } from './state/paths.ts';
