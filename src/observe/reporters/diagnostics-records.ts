import type { LoopEvent, LoopEventHandlers } from '../events.ts';

/** Long strings in `trace.jsonl` and `errors.jsonl` (prompts, outputs, tool results) are cut to this. */
export const TRACE_MAX_STRING = 2000;

/** Where the diagnostics handlers write: the JSONL files of the run's diagnostics directory. */
export interface DiagnosticsWriters {
  /** A line of `orchestration.jsonl`, with the event's hat when it has one. */
  orchestration(e: LoopEvent, event: string, fields?: Record<string, unknown>): void;
  record(file: 'agent' | 'performance' | 'errors', fields: Record<string, unknown>, maxString?: number): void;
  /** A section of `prompt-log.md`. */
  prompt(iteration: number, hat: string | null, bytes: number, prompt: string): void;
  /** When each iteration started and its agent first wrote (for the agent latency). */
  startedAt: Map<number, number>;
  firstOutputAt: Map<number, number>;
}

/**
 * What each event adds to the diagnostics files besides its `trace.jsonl` line and its log line:
 * one handler per kind, so a new event kind is a compile error here until it is placed.
 */
export function diagnosticsHandlers(w: DiagnosticsWriters): LoopEventHandlers {
  const nothing = () => {};
  return {
    'loop.started': (e) =>
      w.orchestration(e, 'loop.started', {
        run_id: e.runId,
        resumed: e.resumed,
        backend: e.backend,
        max_iterations: e.maxIterations,
        branch: e.branch ?? null,
      }),
    notice: (e) => {
      w.orchestration(e, 'notice', { level: e.level, message: e.message });
      if (e.level === 'warn') w.record('errors', { event: 'notice', level: e.level, message: e.message });
    },
    'iteration.started': (e) =>
      w.orchestration(e, 'iteration.started', {
        max_iterations: e.maxIterations,
        backend: e.backend,
        branch: e.branch ?? null,
        elapsed_ms: e.elapsedMs,
      }),
    'hat.activated': (e) =>
      w.orchestration(e, 'hat.activated', {
        hat_id: e.hatId,
        hat_name: e.hatName,
        triggered_by: e.triggeredBy,
      }),
    'prompt.assembled': (e) => {
      w.orchestration(e, 'iteration.context', { prompt_bytes: e.bytes, scratchpad: e.scratchpad });
      w.prompt(e.iteration, e.hat, e.bytes, e.prompt);
    },
    'agent.spawned': (e) => w.orchestration(e, 'agent.spawned', { pid: e.pid, command: e.command }),
    'event.published': (e) =>
      w.orchestration(e, 'event.published', { topic: e.topic, payload: e.payload ?? null, source: e.source }),
    'event.malformed': (e) => {
      w.orchestration(e, 'event.malformed', { line: e.line, error: e.error });
      w.record('errors', { event: 'event.malformed', line: e.line, error: e.error }, TRACE_MAX_STRING);
    },
    'completion.decided': (e) =>
      w.orchestration(e, 'completion.decided', {
        outcome: e.accepted ? 'accepted' : 'rejected',
        accepted: e.accepted,
        reasons: e.reasons,
        persistent: e.persistent,
      }),
    'hook.started': (e) =>
      w.orchestration(e, 'hook.started', { phase_event: e.phaseEvent, name: e.name, attempt: e.attempt }),
    'hook.finished': (e) => {
      const fields = {
        phase_event: e.phaseEvent,
        name: e.name,
        attempt: e.attempt,
        disposition: e.disposition,
        exit_code: e.exitCode,
        timed_out: e.timedOut,
        duration_ms: e.durationMs,
        failure: e.failure,
      };
      w.orchestration(e, 'hook.finished', fields);
      if (e.disposition !== 'pass')
        w.record('errors', { event: 'hook.finished', ...fields, output: e.output }, TRACE_MAX_STRING);
    },
    'loop.idle': (e) => w.orchestration(e, 'loop.idle', { watch: e.watch, cooldown_ms: e.cooldownMs }),
    'loop.woke': (e) => w.orchestration(e, 'loop.woke', { reason: e.reason }),
    'gate.finished': (e) => {
      w.orchestration(e, 'gate.finished', { gate: e.gate, ...e.summary });
      if (!e.summary.passed)
        w.record(
          'errors',
          { event: 'gate.failed', gate: e.gate, ...e.summary, output: e.output },
          TRACE_MAX_STRING,
        );
    },
    'git.committed': (e) =>
      w.orchestration(e, 'git.committed', { commit: e.commit, message: e.message, ...repoField(e.repo) }),
    'git.pushed': (e) =>
      w.orchestration(e, 'git.pushed', { remote: e.remote, branch: e.branch, ...repoField(e.repo) }),
    'forge.pull_request': (e) => {
      const { type: _, iteration: __, ...pr } = e;
      w.orchestration(e, 'forge.pull_request', pr);
    },
    'agent.event': (e) => {
      w.record('agent', { ...e.event });
      if (e.event.type === 'error') w.record('errors', { event: 'agent.error', message: e.event.message });
    },
    'iteration.finished': (e) => {
      const r = e.record;
      const started = w.startedAt.get(r.iteration);
      const first = w.firstOutputAt.get(r.iteration);
      const fields = { hat: r.hat };
      w.orchestration(e, 'iteration.finished', {
        ...fields,
        verdict: r.verdict,
        reason: r.reason,
        events: r.events,
      });
      w.record('performance', {
        ...fields,
        duration_ms: r.duration_ms,
        agent_latency_ms: started !== undefined && first !== undefined ? first - started : null,
        tokens: r.tokens,
        cost_usd: r.cost_usd,
        context_pct: r.context_pct,
        model: r.model,
        verdict: r.verdict,
        totals: { cost_usd: e.totals.costUsd, tokens: e.totals.tokens },
      });
      if (r.verdict === 'failure')
        w.record('errors', {
          ...fields,
          event: 'iteration.failed',
          reason: r.reason,
          exit_code: r.exit_code,
          signal: r.signal,
          killed_by: r.killed_by,
        });
      w.startedAt.delete(r.iteration);
      w.firstOutputAt.delete(r.iteration);
    },
    'loop.finished': (e) => {
      const fields = { stop_reason: e.stopReason, message: e.message, exit_code: e.exitCode };
      w.orchestration(e, 'loop.terminated', {
        ...fields,
        run_id: e.runId,
        iterations: e.iterations,
        elapsed_ms: e.elapsedMs,
        tokens: e.tokens,
        cost_usd: e.costUsd,
      });
      if (e.exitCode !== 0) w.record('errors', { event: 'loop.terminated', ...fields });
    },
    // In the trace and the log only.
    preflight: nothing,
    'gate.started': nothing,
    'gate.output': nothing,
    'loop.parked': nothing,
    'control.received': nothing,
    'loop.paused': nothing,
    'loop.resumed': nothing,
    'human.question': nothing,
    'human.answered': nothing,
    'human.progress': nothing,
    'review.finished': nothing,
    'limit.warning': nothing,
    'agent.heartbeat': nothing,
    // Written as `stdout|` / `stderr|` lines of the log by the sink itself.
    'agent.output': nothing,
  };
}

/** repos: the repository a git record is about (nothing for the workspace). */
function repoField(repo: string | undefined): { repo?: string } {
  return repo === undefined ? {} : { repo };
}
