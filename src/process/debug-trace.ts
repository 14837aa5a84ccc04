/**
 * The debug channel (`ralph --debug`, `RALPH_DEBUG=1`): typed records of what Ralph itself does —
 * config files read, processes started, HTTP calls, cache and lock outcomes, state files written —
 * handed to one sink the embedder installs (the CLI prints them to stderr). It lives at the bottom
 * of the layers so each door (the supervisor, the HTTP core, the write layer) can report through it.
 * Off (no sink), a call site pays one check: every record is built only after `tracing()` said yes.
 */

/** One thing Ralph did, as the debug trace shows it; the sink redacts it (see DebugSink). */
export type DebugEvent =
  | { kind: 'config.read'; path: string }
  /** A cache answered (`hit`) or Ralph did the work (the config cache; the watched `git status`). */
  | { kind: 'cache'; name: string; hit: boolean; of: string }
  | {
      kind: 'agent.spawn';
      backend: string | undefined;
      command: string;
      args: readonly string[];
      cwd: string;
      sandboxed: boolean;
    }
  | {
      kind: 'process.ended';
      command: string;
      args: readonly string[];
      cwd: string | undefined;
      exitCode: number | null;
      signal: string | null;
      killedBy: string | null;
      /** The reason it never started (ENOENT …), when it did not. */
      spawnError: string | undefined;
      durationMs: number;
    }
  | {
      kind: 'http';
      method: string;
      /** Without query, fragment and user info (where credentials ride); a client may hide more. */
      url: string;
      /** The HTTP status, or how the try failed without one (`timeout`, `network` …). */
      status: number | string;
      durationMs: number;
    }
  | { kind: 'lock'; path: string; outcome: 'acquired' | 'held' }
  | { kind: 'state.write'; path: string };

/**
 * Receives every debug record. Records hold argv and paths as they are: the sink redacts what the
 * environment and key shapes give away (observe/redact.ts) before it shows anything; a run wraps it
 * with its own redaction (a config's secrets), and a client whose URL path is a credential gives a
 * `traceUrl` (Telegram).
 */
export type DebugSink = (event: DebugEvent) => void;

let sink: DebugSink | undefined;

/** Installs `next` (undefined: off) and returns the one it replaced, for the caller to put back. */
export function setDebugSink(next: DebugSink | undefined): DebugSink | undefined {
  const previous = sink;
  sink = next;
  return previous;
}

/** True while a sink listens: call sites build a record only then. */
export function tracing(): boolean {
  return sink !== undefined;
}

/** Hands `event` to the sink; a sink that throws never fails what Ralph was doing. */
export function trace(event: DebugEvent): void {
  if (sink === undefined) return;
  try {
    sink(event);
  } catch {
    // the trace is a view of the work, never a cause of its failure
  }
}

/** `url` without its query, fragment or user info: where a credential of a URL rides. */
export function traceableUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}
