import { appendFileSync, openSync, writeSync } from 'node:fs';
import { fileSystemError } from '../../errors.ts';
import { trace as debugTrace, tracing } from '../../process/debug-trace.ts';

/**
 * The one place Ralph's writes go through: durable writes (every atomic file write and JSON-lines
 * append) and output writes (the run log and the event stream, where the agent's output lands).
 * A failure of either is a RalphError naming the file, the errno in words and what to do.
 *
 * Fault injection for the crash-safety tests (and anyone who wants to check a build), counted per
 * kind in order; unset, no effect:
 * - `RALPH_FAULT_KILL_BEFORE_WRITE=N` / `RALPH_FAULT_KILL_AFTER_WRITE=N`: SIGKILL right before or
 *   after the N-th durable write;
 * - `RALPH_FAULT_SIGNAL_AFTER_WRITE=N:SIGINT,SIGINT`: those signals after it (Ctrl-C twice);
 * - `RALPH_FAULT_SIGNAL_BEFORE_WRITE=N:SIGSTOP`: those signals right before it (frozen mid-way, e.g.
 *   holding a lock, until SIGCONT);
 * - `RALPH_FAULT_ERRNO_AT_WRITE=N:ENOSPC` / `RALPH_FAULT_ERRNO_AT_OUTPUT_WRITE=N:EROFS`: the N-th
 *   durable / output write fails with that errno instead of writing (a full or read-only disk);
 * - `RALPH_FAULT_TRACE_WRITES=FILE`: one JSON line per write (kind, n, path, the text's start), so a
 *   test can enumerate every write point of a run.
 */
const counts = { durable: 0, output: 0 };

function target(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Fails like the system would when `RALPH_FAULT_ERRNO_AT_…` names this write. */
function injectErrno(variable: string, n: number, path: string): void {
  const fault = /^(\d+):(E[A-Z]+)$/.exec(process.env[variable] ?? '');
  if (!fault || Number(fault[1]) !== n) return;
  const error: NodeJS.ErrnoException = new Error(`${fault[2]}: injected fault, write '${path}'`);
  error.code = fault[2]!;
  error.syscall = 'write';
  throw error;
}

function trace(kind: keyof typeof counts, path: string, text?: string): void {
  const file = process.env.RALPH_FAULT_TRACE_WRITES;
  if (!file) return;
  const line = { kind, n: counts[kind], path, ...(text === undefined ? {} : { text: text.slice(0, 200) }) };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** Converts a file-system failure of a write to `path` into the RalphError that names it. */
function named<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw fileSystemError(error, { path }) ?? error;
  }
}

/** Runs one durable write of `path`, counting it (and failing or dying at the configured point). */
export function durableWrite<T>(path: string, write: () => T): T {
  const n = ++counts.durable;
  trace('durable', path);
  // Output writes (the run log, the stream, per chunk of agent output) would drown the trace.
  if (tracing()) debugTrace({ kind: 'state.write', path });
  if (target('RALPH_FAULT_KILL_BEFORE_WRITE') === n) process.kill(process.pid, 'SIGKILL');
  signalAt('RALPH_FAULT_SIGNAL_BEFORE_WRITE', n);
  const result = named(path, () => {
    injectErrno('RALPH_FAULT_ERRNO_AT_WRITE', n, path);
    return write();
  });
  if (target('RALPH_FAULT_KILL_AFTER_WRITE') === n) process.kill(process.pid, 'SIGKILL');
  signalAt('RALPH_FAULT_SIGNAL_AFTER_WRITE', n);
  return result;
}

/** Sends the signals `name` (`N:SIG,SIG`) asks for when this is the N-th durable write. */
function signalAt(name: string, n: number): void {
  const signals = /^(\d+):([A-Z,]+)$/.exec(process.env[name] ?? '');
  if (signals && Number(signals[1]) === n)
    for (const signal of signals[2]!.split(',')) process.kill(process.pid, signal as NodeJS.Signals);
}

/**
 * Writes all of `text` to `fd`: a short write (a nearly full disk takes part of it) is continued,
 * and then fails with the disk's errno instead of leaving a silently cut file.
 */
export function writeAll(fd: number, text: string | Uint8Array): void {
  const buf = typeof text === 'string' ? Buffer.from(text) : text;
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off);
}

/**
 * Opens an output file (the run log, the event stream, diagnostics, a worker's log) with `flags`
 * (default: append), a failure naming it; what is written to it goes through {@link outputWrite}
 * (or, for diagnostics and a child's output, not counted), the open itself is not a write point.
 */
export function openOutputFile(path: string, flags = 'a'): number {
  return named(path, () => openSync(path, flags));
}

/** Appends `text` to the open output file `path` (the run log, the event stream), counted. */
export function outputWrite(fd: number, path: string, text: string): void {
  const n = ++counts.output;
  trace('output', path, text);
  named(path, () => {
    injectErrno('RALPH_FAULT_ERRNO_AT_OUTPUT_WRITE', n, path);
    writeAll(fd, text);
  });
}
