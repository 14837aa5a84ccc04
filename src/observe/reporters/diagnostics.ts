import { closeSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { localTime } from '../../state/io/time-format.ts';
import { openOutputFile, writeAll } from '../../state/io/write-faults.ts';
import { ralphPaths } from '../../state/paths.ts';
import { pruneLogFiles } from '../../state/run-dirs.ts';
import { describeEvent } from '../describe-event.ts';
import { handleEvent, type LoopEvent } from '../events.ts';
import { toJsonSafe } from '../json-safe.ts';
import type { Reporter } from '../reporter.ts';
import { diagnosticsHandlers, TRACE_MAX_STRING } from './diagnostics-records.ts';

const LOG_NAME = /^ralph-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:-\d+)?\.log$/;

export interface DiagnosticsOptions {
  /** Clock for record timestamps, directory names and agent latency (default `Date.now`). */
  now?: () => number;
  /** How many `ralph-<ts>.log` files to keep in `.ralph/diagnostics/logs/`, this one included (default 5). */
  keepLogs?: number;
}

/** The diagnostics sink of one run: a reporter of the loop's event stream and its directory. */
export interface DiagnosticsSink extends Reporter {
  /** `.ralph/diagnostics/<ts>/` of this sink. */
  dir: string;
  /** The human-readable rotating log of this sink. */
  logFile: string;
  /** Never throws; write failures are counted instead. */
  onEvent(e: LoopEvent): void;
  /** Writes (or events) that failed and were swallowed. */
  errorCount(): number;
  close(): void;
}

/** Local time as `YYYY-MM-DDTHH-MM-SS`, safe in file names. */
export function diagnosticsStamp(ms: number): string {
  return localTime(ms, 'YYYY-MM-DDTHH-mm-ss');
}

/** A fence of backticks longer than any backtick run in `text` (at least three). */
function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
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

/** Deletes all but the newest `keep` rotated logs (the shared walk's order: last written); `current` always stays. */
export function rotateLogs(logsDir: string, current: string, keep: number): void {
  pruneLogFiles(logsDir, keep, basename(current), (name) => LOG_NAME.test(name));
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
    const fd = openOutputFile(path, flags);
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
      writeAll(fd, text);
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

  const handlers = diagnosticsHandlers({
    orchestration: (e, event, fields = {}) =>
      record(files.orchestration, { event, ...fields, ...('hat' in e ? { hat: e.hat } : {}) }),
    record: (file, fields, maxString) => record(files[file], fields, maxString),
    prompt: (n, promptHat, bytes, prompt) => {
      const fence = fenceFor(prompt);
      const body = prompt.endsWith('\n') ? prompt : `${prompt}\n`;
      write(
        files.prompts,
        `## Iteration ${n} — hat ${promptHat ?? 'solo'} (${bytes} bytes)\n\n${fence}\n${body}${fence}\n\n`,
      );
    },
    startedAt,
    firstOutputAt,
  });

  const handle = (e: LoopEvent) => {
    if ('iteration' in e) iteration = e.iteration;
    if (e.type === 'iteration.finished') iteration = e.record.iteration;
    if (e.type === 'iteration.started') {
      hat = e.hat;
      startedAt.set(e.iteration, now());
    }
    if (e.type === 'hat.activated') hat = e.hatId;

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
    logLine(describeEvent(e));

    handleEvent(handlers, e);
  };

  return {
    dir,
    logFile,
    onEvent(e) {
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
