import { closeSync, mkdirSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent } from '../backends/types.ts';
import { ralphPaths } from '../state/paths.ts';
import { localTime } from '../state/time-format.ts';
import type { LoopEvent } from './events.ts';

/** Long strings in `trace.jsonl` (prompts, outputs, tool results) are cut to this many chars. */
const TRACE_MAX_STRING = 2000;
const SUMMARY_MAX = 200;
const MAX_DEPTH = 32;
const LOG_NAME = /^ralph-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})(?:-(\d+))?\.log$/;

export interface DiagnosticsOptions {
  /** Clock for record timestamps, directory names and agent latency (default `Date.now`). */
  now?: () => number;
  /** How many `ralph-<ts>.log` files to keep in `.ralph/diagnostics/logs/`, this one included (default 5). */
  keepLogs?: number;
}

/** The diagnostics sink of one run: a listener for the loop's event stream and its directory. */
export interface DiagnosticsSink {
  /** `.ralph/diagnostics/<ts>/` of this sink. */
  dir: string;
  /** The human-readable rotating log of this sink. */
  logFile: string;
  /** Never throws; write failures are counted instead. */
  listener: (e: LoopEvent) => void;
  /** Writes (or events) that failed and were swallowed. */
  errorCount(): number;
  close(): void;
}

/** Local time as `YYYY-MM-DDTHH-MM-SS`, safe in file names. */
export function diagnosticsStamp(ms: number): string {
  return localTime(ms, 'YYYY-MM-DDTHH-mm-ss');
}

/**
 * Converts anything into plain JSON data: cycles, bigints, throwing getters and `toJSON`s,
 * Maps and Sets never make a record unwritable. Strings longer than `maxString` are cut.
 */
export function toJsonSafe(value: unknown, maxString = Number.POSITIVE_INFINITY): unknown {
  const ancestors: object[] = [];
  const walk = (v: unknown, depth: number): unknown => {
    switch (typeof v) {
      case 'string':
        return v.length > maxString ? `${v.slice(0, maxString)}… [${v.length - maxString} more chars]` : v;
      case 'number':
        return Number.isFinite(v) ? v : String(v);
      case 'boolean':
        return v;
      case 'bigint':
        return v.toString();
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
    }
    if (v === null) return null;
    const obj = v as object;
    if (ancestors.includes(obj)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[MaxDepth]';
    ancestors.push(obj);
    try {
      if (obj instanceof Error) return { name: obj.name, message: walk(obj.message, depth + 1) };
      const toJSON = (obj as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return walk(toJSON.call(obj), depth + 1);
      if (Array.isArray(obj)) return obj.map((x) => walk(x, depth + 1) ?? null);
      if (obj instanceof Set) return [...obj].map((x) => walk(x, depth + 1) ?? null);
      const out: Record<string, unknown> = {};
      const keys: unknown[] = obj instanceof Map ? [...obj.keys()] : Object.keys(obj);
      for (const k of keys) {
        // Read each value on its own so one throwing getter costs only its key.
        try {
          const x = obj instanceof Map ? obj.get(k) : (obj as Record<string, unknown>)[k as string];
          const w = walk(x, depth + 1);
          if (w !== undefined) out[String(k)] = w;
        } catch {
          out[String(k)] = '[Unreadable]';
        }
      }
      return out;
    } catch {
      return '[Unreadable]';
    } finally {
      ancestors.pop();
    }
  };
  return walk(value, 0);
}

/** A fence of backticks longer than any backtick run in `text` (at least three). */
function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function short(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(toJsonSafe(v, SUMMARY_MAX)) ?? '');
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > SUMMARY_MAX ? `${one.slice(0, SUMMARY_MAX)}…` : one;
}

/** Creates `<parent>/<base>`, or `<base>-2`, `<base>-3`… when taken; returns the name used. */
function createUnique(parent: string, base: string, ext: string, create: (path: string) => void): string {
  for (let n = 1; ; n++) {
    const path = join(parent, `${base}${n === 1 ? '' : `-${n}`}${ext}`);
    try {
      create(path);
      return path;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Deletes all but the newest `keep` rotated logs; `current` always stays. */
export function rotateLogs(logsDir: string, current: string, keep: number): void {
  const logs = readdirSync(logsDir)
    .map((name) => ({ name, m: LOG_NAME.exec(name) }))
    .filter((x) => x.m !== null && join(logsDir, x.name) !== current)
    .map((x) => ({ name: x.name, stamp: x.m![1]!, n: Number(x.m![2] ?? 1) }))
    .sort((a, b) => (a.stamp === b.stamp ? b.n - a.n : a.stamp < b.stamp ? 1 : -1));
  for (const old of logs.slice(Math.max(0, keep - 1))) {
    try {
      unlinkSync(join(logsDir, old.name));
    } catch {
      // Another run may have rotated it already.
    }
  }
}

function agentSummary(a: AgentEvent): string {
  switch (a.type) {
    case 'system':
      return `agent system model=${a.model ?? '?'}`;
    case 'text':
      return `agent text: ${short(a.text)}`;
    case 'tool_call':
      return `agent tool_call ${a.name} ${short(a.input ?? '')}`;
    case 'tool_result':
      return `agent tool_result${a.isError ? ' (error)' : ''}: ${short(a.output)}`;
    case 'usage':
      return `agent usage in=${a.usage.inputTokens} out=${a.usage.outputTokens} cache_read=${a.usage.cacheReadTokens} cache_write=${a.usage.cacheWriteTokens}`;
    case 'result':
      return `agent result${a.isError ? ' (error)' : ''}${a.costUsd === undefined ? '' : ` $${a.costUsd}`}: ${short(a.text)}`;
    case 'error':
      return `agent error: ${short(a.message)}`;
    case 'rate_limit':
      return `agent rate limit${a.resetAt ? ` until ${new Date(a.resetAt).toISOString()}` : ''}: ${short(a.message)}`;
  }
}

/** One human line per loop event (agent output chunks are written as their own lines). */
function logSummary(e: Exclude<LoopEvent, { type: 'agent.output' }>): string {
  switch (e.type) {
    case 'loop.started':
      return `loop started run=${e.runId} backend=${e.backend} max_iterations=${e.maxIterations}${e.resumed ? ' (resumed)' : ''}`;
    case 'notice':
      return `${e.level}: ${e.message}`;
    case 'preflight':
      return `preflight: ${e.checks.map((c) => `${c.level} ${c.check}`).join(', ')}`;
    case 'iteration.started':
      return `iteration ${e.iteration}/${e.maxIterations} started hat=${e.hat ?? 'solo'} backend=${e.backend}`;
    case 'hat.activated':
      return `hat activated ${e.hatId} (${e.hatName}) by ${e.triggeredBy.join(', ') || '(nothing)'}`;
    case 'prompt.assembled':
      return `prompt assembled ${e.bytes} bytes, scratchpad ${e.scratchpad === null ? 'none' : `${e.scratchpad.length} chars`}`;
    case 'agent.spawned':
      return `agent spawned pid=${e.pid} command=${e.command}`;
    case 'event.published':
      return `event ${e.topic} from ${e.source}: ${short(e.payload ?? null)}`;
    case 'event.malformed':
      return `malformed event line (${e.error}): ${short(e.line)}`;
    case 'completion.decided':
      return `completion ${e.accepted ? 'accepted' : 'rejected'}${e.reasons.length ? `: ${e.reasons.join('; ')}` : ''}`;
    case 'loop.idle':
      return `loop idle, watching ${e.watch.join(', ') || '(nothing)'}`;
    case 'loop.woke':
      return `loop woke: ${e.reason}`;
    case 'agent.heartbeat':
      return `agent running ${Math.round(e.runningMs / 1000)}s, silent ${Math.round(e.silentMs / 1000)}s`;
    case 'loop.parked':
      return `parked until ${new Date(e.until).toISOString()}: ${short(e.message)}`;
    case 'control.received':
      return `control ${e.kind} ${e.id} from ${e.source}${e.text ? `: ${short(e.text)}` : ''}`;
    case 'loop.paused':
      return 'loop paused';
    case 'loop.resumed':
      return `loop resumed after ${e.from}`;
    case 'human.question':
      return `${e.kind} ${e.id} waiting for a human: ${short(e.text)}`;
    case 'human.answered':
      return `${e.kind} ${e.id} answered by ${e.by}: ${short(e.answer)}${e.reason ? ` (${short(e.reason)})` : ''}`;
    case 'limit.warning':
      return `limit warning: ${e.message}`;
    case 'review.finished':
      return `review by ${e.backend} (round ${e.round}): ${e.approved ? 'APPROVE' : `REQUEST_CHANGES — ${e.findings.join('; ')}`}`;
    case 'gate.started':
      return `gate ${e.gate} started: ${short(e.command)}`;
    case 'gate.output':
      return `gate ${e.gate}| ${short(e.text.trimEnd())}`;
    case 'gate.finished':
      return `gate ${e.gate} ${e.summary.passed ? 'passed' : 'FAILED'} (exit ${e.summary.exit_code}, ${e.summary.duration_ms} ms)`;
    case 'git.committed':
      return `git commit ${e.commit.slice(0, 7)}: ${short(e.message.split('\n')[0] ?? '')}`;
    case 'git.pushed':
      return `git push ${e.remote} ${e.branch}`;
    case 'agent.event':
      return agentSummary(e.event);
    case 'iteration.finished': {
      const r = e.record;
      return `iteration ${r.iteration} finished ${r.verdict}${r.reason ? ` (${r.reason})` : ''} in ${r.duration_ms}ms tokens=${r.tokens.total} cost=${r.cost_usd ?? 'n/a'}`;
    }
    case 'loop.finished':
      return `loop finished ${e.stopReason} exit=${e.exitCode}: ${e.message}`;
  }
}

/**
 * Diagnostics for `RALPH_DIAGNOSTICS=1` (the caller decides): one directory per run under
 * `.ralph/diagnostics/<ts>/` with agent output, orchestration, performance, trace, errors and
 * the prompt log, plus a rotating human log in `.ralph/diagnostics/logs/`. Every line is a
 * synchronous append so a crash leaves only complete lines.
 */
export function createDiagnosticsSink(workspace: string, options: DiagnosticsOptions = {}): DiagnosticsSink {
  const now = options.now ?? Date.now;
  const keepLogs = Math.max(1, Math.floor(options.keepLogs ?? 5));
  const root = ralphPaths(workspace).diagnostics;
  const logsDir = join(root, 'logs');
  mkdirSync(logsDir, { recursive: true });
  const stamp = diagnosticsStamp(now());
  const dir = createUnique(root, stamp, '', (p) => mkdirSync(p));
  const fds: number[] = [];
  const open = (path: string, flags = 'a') => {
    const fd = openSync(path, flags);
    fds.push(fd);
    return fd;
  };
  let logFd = -1;
  let files: Record<'agent' | 'orchestration' | 'performance' | 'trace' | 'errors' | 'prompts', number>;
  let logFile: string;
  try {
    logFile = createUnique(logsDir, `ralph-${stamp}`, '.log', (p) => {
      logFd = open(p, 'wx');
    });
    rotateLogs(logsDir, logFile, keepLogs);
    files = {
      agent: open(join(dir, 'agent-output.jsonl')),
      orchestration: open(join(dir, 'orchestration.jsonl')),
      performance: open(join(dir, 'performance.jsonl')),
      trace: open(join(dir, 'trace.jsonl')),
      errors: open(join(dir, 'errors.jsonl')),
      prompts: open(join(dir, 'prompt-log.md')),
    };
  } catch (err) {
    for (const fd of fds) closeSync(fd);
    throw err;
  }

  let closed = false;
  let errors = 0;
  let hat: string | null = null;
  let iteration = 0;
  const startedAt = new Map<number, number>();
  const firstOutputAt = new Map<number, number>();
  const partial = { stdout: '', stderr: '' };

  const write = (fd: number, text: string) => {
    try {
      const buf = Buffer.from(text);
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off);
    } catch {
      errors++;
    }
  };
  const record = (fd: number, fields: Record<string, unknown>, maxString?: number) => {
    const base = { ts: new Date(now()).toISOString(), iteration, hat };
    write(fd, `${JSON.stringify(toJsonSafe({ ...base, ...fields }, maxString))}\n`);
  };
  const logLine = (text: string) => {
    const t = diagnosticsStamp(now()).slice(11).replaceAll('-', ':');
    write(logFd, `${t} [${iteration}${hat ? ` ${hat}` : ''}] ${text}\n`);
  };
  const flushOutput = (stream: 'stdout' | 'stderr') => {
    if (partial[stream] !== '') logLine(`${stream}| ${partial[stream]}`);
    partial[stream] = '';
  };

  const handle = (e: LoopEvent) => {
    if ('iteration' in e) iteration = e.iteration;
    if (e.type === 'iteration.finished') iteration = e.record.iteration;
    if (e.type === 'iteration.started') {
      hat = e.hat;
      startedAt.set(e.iteration, now());
    }
    if (e.type === 'hat.activated') hat = e.hatId;
    const orchestration = (event: string, fields: Record<string, unknown> = {}) =>
      record(files.orchestration, { event, ...fields, ...('hat' in e ? { hat: e.hat } : {}) });

    if (e.type === 'agent.output') {
      if (!firstOutputAt.has(e.iteration)) firstOutputAt.set(e.iteration, now());
      const lines = (partial[e.stream] + e.text).split('\n');
      partial[e.stream] = lines.pop() ?? '';
      for (const line of lines) logLine(`${e.stream}| ${line}`);
      return;
    }
    if (e.type === 'iteration.finished' || e.type === 'loop.finished') {
      flushOutput('stdout');
      flushOutput('stderr');
    }
    const { type, ...rest } = e;
    record(files.trace, { type, ...rest }, TRACE_MAX_STRING);
    logLine(logSummary(e));

    switch (e.type) {
      case 'loop.started':
        orchestration('loop.started', {
          run_id: e.runId,
          resumed: e.resumed,
          backend: e.backend,
          max_iterations: e.maxIterations,
          branch: e.branch ?? null,
        });
        break;
      case 'notice':
        orchestration('notice', { level: e.level, message: e.message });
        if (e.level === 'warn') record(files.errors, { event: 'notice', level: e.level, message: e.message });
        break;
      case 'iteration.started':
        orchestration('iteration.started', {
          max_iterations: e.maxIterations,
          backend: e.backend,
          branch: e.branch ?? null,
          elapsed_ms: e.elapsedMs,
        });
        break;
      case 'hat.activated':
        orchestration('hat.activated', { hat_id: e.hatId, hat_name: e.hatName, triggered_by: e.triggeredBy });
        break;
      case 'prompt.assembled': {
        orchestration('iteration.context', { prompt_bytes: e.bytes, scratchpad: e.scratchpad });
        const fence = fenceFor(e.prompt);
        const body = e.prompt.endsWith('\n') ? e.prompt : `${e.prompt}\n`;
        write(
          files.prompts,
          `## Iteration ${e.iteration} — hat ${e.hat ?? 'solo'} (${e.bytes} bytes)\n\n${fence}\n${body}${fence}\n\n`,
        );
        break;
      }
      case 'agent.spawned':
        orchestration('agent.spawned', { pid: e.pid, command: e.command });
        break;
      case 'event.published':
        orchestration('event.published', { topic: e.topic, payload: e.payload ?? null, source: e.source });
        break;
      case 'event.malformed':
        orchestration('event.malformed', { line: e.line, error: e.error });
        record(files.errors, { event: 'event.malformed', line: e.line, error: e.error }, TRACE_MAX_STRING);
        break;
      case 'completion.decided':
        orchestration('completion.decided', {
          outcome: e.accepted ? 'accepted' : 'rejected',
          accepted: e.accepted,
          reasons: e.reasons,
          persistent: e.persistent,
        });
        break;
      case 'loop.idle':
        orchestration('loop.idle', { watch: e.watch, cooldown_ms: e.cooldownMs });
        break;
      case 'loop.woke':
        orchestration('loop.woke', { reason: e.reason });
        break;
      case 'gate.finished':
        orchestration('gate.finished', { gate: e.gate, ...e.summary });
        if (!e.summary.passed)
          record(
            files.errors,
            { event: 'gate.failed', gate: e.gate, ...e.summary, output: e.output },
            TRACE_MAX_STRING,
          );
        break;
      case 'git.committed':
        orchestration('git.committed', { commit: e.commit, message: e.message });
        break;
      case 'git.pushed':
        orchestration('git.pushed', { remote: e.remote, branch: e.branch });
        break;
      case 'agent.event':
        record(files.agent, { ...e.event });
        if (e.event.type === 'error')
          record(files.errors, { event: 'agent.error', message: e.event.message });
        break;
      case 'iteration.finished': {
        const r = e.record;
        const started = startedAt.get(r.iteration);
        const first = firstOutputAt.get(r.iteration);
        const fields = { hat: r.hat };
        orchestration('iteration.finished', {
          ...fields,
          verdict: r.verdict,
          reason: r.reason,
          events: r.events,
        });
        record(files.performance, {
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
        if (r.verdict === 'failure') {
          record(files.errors, {
            ...fields,
            event: 'iteration.failed',
            reason: r.reason,
            exit_code: r.exit_code,
            signal: r.signal,
            killed_by: r.killed_by,
          });
        }
        startedAt.delete(r.iteration);
        firstOutputAt.delete(r.iteration);
        break;
      }
      case 'loop.finished': {
        const fields = { stop_reason: e.stopReason, message: e.message, exit_code: e.exitCode };
        orchestration('loop.terminated', {
          ...fields,
          run_id: e.runId,
          iterations: e.iterations,
          elapsed_ms: e.elapsedMs,
          tokens: e.tokens,
          cost_usd: e.costUsd,
        });
        if (e.exitCode !== 0) record(files.errors, { event: 'loop.terminated', ...fields });
        break;
      }
    }
  };

  return {
    dir,
    logFile,
    listener(e) {
      if (closed) return;
      try {
        handle(e);
      } catch {
        errors++;
      }
    },
    errorCount: () => errors,
    close() {
      if (closed) return;
      flushOutput('stdout');
      flushOutput('stderr');
      closed = true;
      for (const fd of fds) {
        try {
          closeSync(fd);
        } catch {
          errors++;
        }
      }
    },
  };
}
