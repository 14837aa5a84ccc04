import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveBackend } from '../backends/registry.ts';
import type { AgentEvent, AgentInvocation, Backend, ExitClass } from '../backends/types.ts';
import type { RalphConfig } from '../config/schema.ts';
import { buildAgentEnv } from '../engine/context/agent-env.ts';
import { UsageMeter } from '../engine/context/usage-meter.ts';
import type { TokenTotals } from '../observe/events.ts';
import { RALPH_BIN, RALPH_BIN_DIR } from '../paths-package.ts';
import { installHint } from '../process/find-executable.ts';
import { sweepMarkedProcesses } from '../process/marked-processes.ts';
import { type SuperviseResult, supervise } from '../process/supervisor.ts';
import type { CliIO } from './io.ts';

/** `ralph doctor --probe`: one headless turn of the configured backend through the real supervisor. */
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

function lastLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? ''
  );
}

/** How the probe ended: success only on a clean exit; otherwise the backend's own reading of it. */
function classifyProbe(
  backend: Backend,
  sup: SuperviseResult,
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

/** Runs the configured backend (auto already resolved) once, headless, the way an iteration runs it. */
export async function runProbe(config: RalphConfig, io: CliIO): Promise<DoctorProbe> {
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
  const parser = backend.createParser();
  const meter = new UsageMeter();
  const events: AgentEvent[] = [];
  let resultError = false;
  const scratch = mkdtempSync(join(tmpdir(), 'ralph-probe-'));
  // Its own mark: what the probed agent leaves running (a detached helper) is swept afterwards.
  const probeRun = `doctor-probe-${process.pid}-${Date.now()}`;
  // The agent runs in its own process group: Ctrl-C must kill it rather than orphan it.
  const controller = new AbortController();
  const onSignal = () => controller.abort('interrupted');
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const sup = await supervise({
      command: invocation.command,
      args: invocation.args,
      cwd: io.cwd,
      env: buildAgentEnv({
        base: io.env,
        eventsFile: join(scratch, 'events.jsonl'),
        ralphBin: RALPH_BIN,
        ralphBinDir: RALPH_BIN_DIR,
        workspace: io.cwd,
        iteration: 1,
        hat: null,
        runId: probeRun,
        human: { timeoutSeconds: config.human.timeout_seconds, defaultAnswer: config.human.default_answer },
        extra: [config.cli.env, invocation.env],
      }),
      stdin: invocation.stdin,
      timeoutMs: PROBE_TIMEOUT_MS,
      timeoutReason: 'probe_timeout',
      killGraceMs: config.event_loop.kill_grace_seconds * 1000,
      signal: controller.signal,
      onLine: (stream, line) => {
        if (stream !== 'stdout') return;
        for (const event of parser.parseLine(line)) {
          events.push(event);
          if (events.length > 200) events.splice(0, 100);
          meter.add(event);
          if (event.type === 'result' && event.isError) resultError = true;
        }
      },
    });
    if (sup.spawnError) {
      const message = `could not start ${invocation.command}: ${sup.spawnError.message} — install it (${installHint(invocation.command)}) or set cli.command`;
      return probeFailure(name, 'unavailable', message, invocation.command);
    }
    const cls = classifyProbe(backend, sup, resultError, events);
    const interrupted = cls.kind === 'killed' && cls.reason === 'interrupted';
    const message =
      cls.kind === 'success'
        ? parser.finalText().trim()
        : cls.kind !== 'killed'
          ? cls.message
          : cls.reason === 'probe_timeout'
            ? `no answer within ${PROBE_TIMEOUT_MS / 1000} s`
            : interrupted
              ? 'stopped by Ctrl-C (or SIGTERM)'
              : cls.reason;
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
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await sweepMarkedProcesses({ runId: probeRun }, config.event_loop.kill_grace_seconds * 1000).catch(
      () => [],
    );
    rmSync(scratch, { recursive: true, force: true });
  }
}
