import { createRedactor } from '../observe/redact.ts';
import { type DebugEvent, type DebugSink, setDebugSink } from '../process/debug-trace.ts';
import { shellCommand } from '../process/shell-quote.ts';
import type { CliIO } from './io.ts';

// `ralph --debug` / RALPH_DEBUG=1: the core's debug records as lines on stderr. Loaded only when
// asked for, so an ordinary start reads none of this.

/** An argument past this many characters (a prompt given as an argument) is shown cut. */
const MAX_ARG_CHARS = 160;

type Redact = (text: string) => string;

// Redacted whole, then cut: a secret longer than the cut would otherwise slip past by halves.
const clip = (arg: string, redact: Redact) => {
  const text = redact(arg);
  return text.length > MAX_ARG_CHARS ? `${text.slice(0, MAX_ARG_CHARS)}…` : text;
};

/** One record as one line of words (without the `ralph[debug]` prefix), its arguments redacted. */
export function debugLine(event: DebugEvent, redact: Redact): string {
  const commandLine = (command: string, args: readonly string[]) =>
    shellCommand(
      redact(command),
      args.map((a) => clip(a, redact)),
    );
  switch (event.kind) {
    case 'config.read':
      return `config: read ${event.path}`;
    case 'cache':
      return `cache: ${event.name} ${event.hit ? 'hit' : 'miss'} for ${event.of}`;
    case 'agent.spawn':
      return `agent: backend ${event.backend ?? '?'}${event.sandboxed ? ' (sandboxed)' : ''} in ${event.cwd}: ${commandLine(event.command, event.args)}`;
    case 'process.ended': {
      const end =
        event.spawnError !== undefined
          ? `did not start (${event.spawnError})`
          : event.killedBy !== null
            ? `killed (${event.killedBy})`
            : event.signal !== null
              ? `ended by ${event.signal}`
              : `exit ${event.exitCode}`;
      const where = event.cwd === undefined ? '' : ` (cwd ${event.cwd})`;
      return `exec: ${commandLine(event.command, event.args)}${where} → ${end} in ${event.durationMs} ms`;
    }
    case 'http':
      return `http: ${event.method} ${event.url} → ${event.status} in ${event.durationMs} ms`;
    case 'lock':
      return `lock: ${event.outcome === 'acquired' ? 'acquired' : 'held by another process'} ${event.path}`;
    case 'state.write':
      return `write: ${event.path}`;
  }
}

/**
 * Installs the stderr sink for this command and returns what puts the previous one back. Every line
 * passes the redaction of logs (secret-named variables' values, key shapes) before it is written.
 */
export function startDebugTrace(io: Pick<CliIO, 'err' | 'env'>): () => void {
  const redact = createRedactor(io.env);
  const sink: DebugSink = (event) => io.err(`ralph[debug] ${redact(debugLine(event, redact))}\n`);
  const previous = setDebugSink(sink);
  return () => {
    setDebugSink(previous);
  };
}
