// Ralph as a library: the engine, its contracts and its building blocks. The CLI in src/cli/ is a
// thin adapter over these exports.
export { resolveBackend } from './backends/registry.ts';
export { createStreamJsonParser, createTextParser, parseStreamJsonObject } from './backends/stream-json.ts';
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
export { type LoopResult, limitsOf, type RunLoopOptions, runLoop } from './engine/run/loop.ts';
export * from './errors.ts';
/** Inspect: where a workspace's loop stands, as `ralph status` reads it (state.json, the lock's live holder, a pending stop, the last event). */
export { type RunStatus, readStatus } from './human/read-status.ts';
export { createConsoleReporter } from './observe/console-reporter.ts';
export type {
  IterationRecord,
  LoopEvent,
  LoopEventListener,
  StopReason,
  TokenTotals,
} from './observe/events.ts';
export { createRunLogSink } from './observe/run-log.ts';
export { type SuperviseOptions, type SuperviseResult, supervise } from './process/supervisor.ts';
export { assemblePrompt, type PromptInput } from './routing/prompt.ts';
/** Inspect: a run's events (`.ralph/current-events`) as `ralph events` reads them, oldest first; `{ follow: true, signal }` keeps following. */
export { type EventLine, type ReadEventsOptions, readEvents } from './state/events-log.ts';
export { type LoopState, readLoopState } from './state/loop-state.ts';
export { ralphPaths } from './state/paths.ts';
