import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentEnvBase, buildAgentEnv } from '../../agent/agent-env.ts';
import { type AgentTurnResult, runAgentTurn } from '../../agent/agent-turn.ts';
import { lastLine } from '../../backends/parsers/json-lines.ts';
import { installHint, resolveBackend } from '../../backends/registry.ts';
import type { AgentEvent, AgentInvocation, Backend, ExitClass } from '../../backends/types.ts';
import { humanChannel } from '../../config/human-checks.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { RALPH_BIN, RALPH_BIN_DIR } from '../../paths-package.ts';
import { sweepMarkedProcesses } from '../../process/marked-processes.ts';
import { probeSandbox } from '../../sandbox/probe.ts';
import { type SandboxPolicy, sandboxSettings } from '../../sandbox/sandbox-types.ts';
import { appendText } from '../../state/io/file-writes.ts';
import { formatDuration } from '../../state/io/time-format.ts';
import type { TokenTotals } from '../../state/iteration-record-shape.ts';
import { gatherRunSandbox } from './sandbox-input.ts';
import { probeRefusal } from './sandbox-readiness.ts';

/** The probe's sandbox under `sandbox: on` (undefined otherwise), or why `on` cannot run here. */
async function probeSandboxOption(
  config: RalphConfig,
  io: { cwd: string; env: NodeJS.ProcessEnv },
  backend: string,
  command: string,
  eventsFile: string,
): Promise<{ policy: SandboxPolicy } | string | undefined> {
  if (sandboxSettings(config).mode !== 'on') return undefined;
  const refusal = probeRefusal(await probeSandbox(), process.platform);
  if (refusal) return refusal.message;
  // A bind mount needs its path: the scratch events file is made; the workspace is left as it is.
  appendText(eventsFile, '');
  const sandbox = await gatherRunSandbox({
    workspace: io.cwd,
    config,
    env: io.env,
    eventsFile,
    create: false,
  });
  return { policy: sandbox.policyFor(backend, command) };
}

/** `ralph doctor --probe`'s answer: one headless turn of the configured backend through the agent-turn runner. */
export interface DoctorProbe {
  backend: string;
  command: string | null;
  ok: boolean;
  /** `success`, the backend's exit class (`auth_error`, `rate_limit`, …), or `unavailable`. */
  kind: string;
  /** The agent's final text when ok, else why it failed. */
  message: string;
  /** When a rate or usage limit resets (ISO 8601), when the CLI said. */
  reset_at: string | null;
  tokens: TokenTotals | null;
  cost_usd: number | null;
  duration_ms: number | null;
}

const PROBE_PROMPT = 'Reply with the single word OK.';
const PROBE_TIMEOUT_MS = 120_000;

/** A probe that did not get an answer: `kind` says why (`unavailable`, …), `message` what to do. */
export function probeFailure(
  backend: string,
  kind: string,
  message: string,
  command: string | null = null,
): DoctorProbe {
  return {
    backend,
    command,
    ok: false,
    kind,
    message,
    reset_at: null,
    tokens: null,
    cost_usd: null,
    duration_ms: null,
  };
}

/** How the probe ended: success only on a clean exit; otherwise the backend's own reading of it. */
function classifyProbe(
  backend: Backend,
  sup: AgentTurnResult['supervised'],
  resultError: boolean,
  events: readonly AgentEvent[],
): ExitClass {
  if (sup.killedBy !== null) return { kind: 'killed', reason: sup.killedBy };
  if (sup.signal === null && sup.exitCode === 0 && !resultError) return { kind: 'success' };
  const cls = backend.classifyExit?.({ ...sup, events });
  const why = sup.signal
    ? `the agent died from ${sup.signal}`
    : resultError
      ? 'the agent reported an error result'
      : `the agent exited with code ${sup.exitCode}`;
  const fallback = lastLine(sup.stderrTail) || why;
  if (!cls || cls.kind === 'success' || cls.kind === 'killed')
    return { kind: 'agent_error', message: fallback };
  return cls.message ? cls : { ...cls, message: fallback };
}

/** Why Ralph killed the probed agent, naming the cap that did. */
function killedMessage(reason: string, config: RalphConfig): string {
  const loop = config.event_loop;
  switch (reason) {
    case 'probe_timeout':
      return `no answer within ${formatDuration(PROBE_TIMEOUT_MS)}`;
    case 'interrupted':
      return 'stopped by Ctrl-C (or SIGTERM)';
    case 'idle_timeout':
      return `no output for ${loop.idle_timeout_seconds} s (event_loop.idle_timeout_seconds)`;
    case 'max_cost':
      return `the answer cost more than event_loop.max_cost_usd ($${loop.max_cost_usd})`;
    case 'max_tokens':
      return `the answer used more than event_loop.max_tokens (${loop.max_tokens})`;
    default:
      return reason;
  }
}

/**
 * Runs the configured backend (auto already resolved) once, headless, in `cwd`, the way an
 * iteration runs it; `signal` kills the agent's process group (Ctrl-C for `ralph doctor --probe`).
 */
export async function probeAgent(
  config: RalphConfig,
  io: { cwd: string; env: NodeJS.ProcessEnv; signal?: AbortSignal | undefined },
): Promise<DoctorProbe> {
  const name = config.cli.backend;
  let backend: Backend;
  let invocation: AgentInvocation;
  try {
    backend = resolveBackend(name, config);
    invocation = backend.buildInvocation({
      prompt: PROBE_PROMPT,
      config,
      workspace: io.cwd,
      extraArgs: [],
    });
  } catch (error) {
    return probeFailure(name, 'unavailable', (error as Error).message);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'ralph-probe-'));
  // Its own mark: what the probed agent leaves running (a detached helper) is swept afterwards.
  const probeRun = `doctor-probe-${process.pid}-${Date.now()}`;
  const loop = config.event_loop;
  try {
    // `sandbox: on`: probed as the loop runs it, inside the run's policy (its events file in the scratch dir).
    const sandbox = await probeSandboxOption(
      config,
      io,
      name,
      invocation.command,
      join(scratch, 'events.jsonl'),
    );
    if (typeof sandbox === 'string') return probeFailure(name, 'unavailable', sandbox, invocation.command);
    // The agent runs in its own process group: Ctrl-C must kill it rather than orphan it.
    const signal = io.signal;
    const run = await runAgentTurn(backend, invocation, {
      cwd: io.cwd,
      env: buildAgentEnv({
        base: agentEnvBase(io.env),
        eventsFile: join(scratch, 'events.jsonl'),
        ralphBin: RALPH_BIN,
        ralphBinDir: RALPH_BIN_DIR,
        workspace: io.cwd,
        iteration: 1,
        hat: null,
        runId: probeRun,
        human: {
          timeoutSeconds: config.human.timeout_seconds,
          defaultAnswer: config.human.default_answer,
          channel: humanChannel(config),
        },
        extra: [config.cli.env, invocation.env],
      }),
      // The caps of a loop's turn, within the probe's own deadline.
      limits: {
        timeoutMs: PROBE_TIMEOUT_MS,
        timeoutReason: 'probe_timeout',
        idleTimeoutMs: loop.idle_timeout_seconds * 1000,
        killGraceMs: loop.kill_grace_seconds * 1000,
        costLeftUsd: loop.max_cost_usd,
        tokensLeft: loop.max_tokens,
      },
      signal,
      sweep: { select: { runId: probeRun }, kill: sweepMarkedProcesses },
      // `ralph doctor` redacts its whole report as it prints it (doctor-command.ts).
      redact: (text) => text,
      sandbox,
    });
    const { supervised: sup, meter } = run;
    if (sup.spawnError) {
      const message = `could not start ${invocation.command}: ${sup.spawnError.message} — install it (${installHint(invocation.command)}) or set cli.command`;
      return probeFailure(name, 'unavailable', message, invocation.command);
    }
    const cls = classifyProbe(backend, sup, run.resultError, run.events);
    const interrupted = cls.kind === 'killed' && cls.reason === 'interrupted';
    const message =
      cls.kind === 'success'
        ? run.finalText.trim()
        : cls.kind !== 'killed'
          ? cls.message
          : killedMessage(cls.reason, config);
    return {
      backend: name,
      command: invocation.command,
      ok: cls.kind === 'success',
      kind: interrupted ? 'interrupted' : cls.kind,
      message,
      reset_at:
        cls.kind === 'rate_limit' && cls.resetAt !== undefined ? new Date(cls.resetAt).toISOString() : null,
      tokens: meter.totals(),
      cost_usd: meter.costUsd ?? null,
      duration_ms: sup.durationMs,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
