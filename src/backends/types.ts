import type { RalphConfig } from '../config/schema.ts';

/** Token counts as agent CLIs report them. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** A normalized event parsed from one line of agent output. */
export type AgentEvent =
  | { type: 'system'; model?: string | undefined; sessionId?: string | undefined }
  | { type: 'text'; text: string }
  | { type: 'tool_call'; name: string; id?: string | undefined; input?: unknown }
  | { type: 'tool_result'; id?: string | undefined; output: string; isError: boolean }
  /**
   * Usage of one model call; `messageId` lets repeated reports of the same call replace each other.
   * `costUsd`: that call's cost, for CLIs that report it per call (summed until a final result).
   */
  | {
      type: 'usage';
      usage: Usage;
      messageId?: string | undefined;
      model?: string | undefined;
      costUsd?: number | undefined;
    }
  | {
      type: 'result';
      text: string;
      isError: boolean;
      usage?: Usage | undefined;
      costUsd?: number | undefined;
      model?: string | undefined;
    }
  | { type: 'error'; message: string }
  /** The CLI reported a rate or usage limit (from its structured output, never from text it read). */
  | { type: 'rate_limit'; message: string; resetAt?: number | undefined; retrying?: boolean | undefined };

/** Reads an agent's stdout line by line and keeps what the loop needs at the end. */
export interface OutputParser {
  parseLine(line: string): AgentEvent[];
  /**
   * A parser of plain text may read the output a chunk at a time instead of a line at a time: one
   * `text` event for the chunk's complete lines (a chatty agent prints millions of lines). Then
   * `flush` gives the last, unterminated line once the output is over. Any parser may have `flush`:
   * the events only the end of the output decides (a CLI that exits 0 when its last prompt failed).
   */
  parseChunk?(chunk: string): AgentEvent[];
  flush?(): AgentEvent[];
  /** The agent's final answer: the result text, or all plain text it printed. */
  finalText(): string;
}

/** The exact command Ralph runs for one iteration. */
export interface AgentInvocation {
  command: string;
  args: string[];
  /** Prompt delivered on stdin, or null when it is passed as an argument. */
  stdin: string | null;
  /** Extra environment for the agent (on top of Ralph's agent environment). */
  env: Record<string, string>;
}

export interface InvocationContext {
  prompt: string;
  config: RalphConfig;
  workspace: string;
  /** Arguments after `--` on the ralph command line. */
  extraArgs: readonly string[];
}

/** How an agent run ended, as the backend reads it. */
export type ExitClass =
  | { kind: 'success' }
  | { kind: 'agent_error'; message: string }
  | { kind: 'auth_error'; message: string }
  /** A rate or usage limit: park until `resetAt` (epoch ms) when known, re-run the same iteration. */
  | { kind: 'rate_limit'; message: string; resetAt?: number | undefined }
  | { kind: 'context_overflow'; message: string }
  | { kind: 'killed'; reason: string };

/** What a backend sees of a finished run to classify it. */
export interface ExitInfo {
  exitCode: number | null;
  signal: string | null;
  killedBy: string | null;
  stdoutTail: string;
  stderrTail: string;
  /** The normalized events parsed from its output (most recent last). */
  events: readonly AgentEvent[];
}

/** Where a backend may write the files its restrictions need (a policy file), and the tools to refuse. */
export interface DenyToolsContext {
  tools: readonly string[];
  /** The workspace's `.ralph/` directory. */
  runtimeDir: string;
}

/** One agent CLI: how to invoke it and how to read it. */
export interface Backend {
  readonly name: string;
  buildInvocation(ctx: InvocationContext): AgentInvocation;
  /**
   * Refuses tools to the agent (`hats.<hat>.disallowed_tools`, tool names as the CLI spells them):
   * the invocation with the CLI's own restriction added. Absent: the CLI has no way to do it, and a
   * config that asks for it is an error naming the backend.
   */
  denyTools?(invocation: AgentInvocation, ctx: DenyToolsContext): AgentInvocation;
  /**
   * `rules.deny` as tools for `denyTools`: the globs the CLI's own permission rules read the way
   * Ralph does (the rest are Ralph's after-the-fact check alone). Absent: no per-path rule.
   */
  pathDenyTools?(deny: readonly string[], workspace: string): string[];
  createParser(): OutputParser;
  /** Classifies the end of a run (success, errors, limits); absent: exit code 0 is success. */
  classifyExit?(info: ExitInfo): ExitClass;
}

export const emptyUsage = (): Usage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

export function totalTokens(u: Usage): number {
  return u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
}
