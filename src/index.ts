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
export { limitsOf, type RunLoopOptions, runLoop } from './engine/run/loop.ts';
export type { LoopSummary } from './engine/run/loop-summary.ts';
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
export { type LoopState, readLoopState } from './state/loop-state.ts';
export { ralphPaths } from './state/paths.ts';
