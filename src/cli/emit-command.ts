import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { RalphError, UsageError } from '../errors.ts';
import { appendLine } from '../state/append-line.ts';
import { ralphPaths } from '../state/paths.ts';

/** Finds the events file: $RALPH_EVENTS_FILE, else the one named in `.ralph/current-events`. */
export function resolveEventsFile(cwd: string, env: NodeJS.ProcessEnv): string {
  if (env.RALPH_EVENTS_FILE) return env.RALPH_EVENTS_FILE;
  const root = env.RALPH_WORKSPACE_ROOT ?? cwd;
  let rel: string;
  try {
    rel = readFileSync(ralphPaths(root).currentEvents, 'utf8').trim();
  } catch {
    throw new RalphError(
      'no_events_file',
      'no events file: RALPH_EVENTS_FILE is unset and .ralph/current-events does not exist (run inside a ralph loop)',
    );
  }
  return isAbsolute(rel) ? rel : join(root, rel);
}

/**
 * `ralph emit <topic> [payload] [--json]`: appends one event line. Kept dependency-free: it runs inside
 * agent tool calls, so it must start fast.
 */
export function emitCommand(args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const json = args.includes('--json');
  const positional = args.filter((a) => a !== '--json');
  const [topic, payloadText] = positional;
  if (!topic || topic.startsWith('-') || positional.length > 2) {
    throw new UsageError('usage: ralph emit <topic> [payload] [--json]');
  }
  let payload: unknown = payloadText ?? null;
  if (json && payloadText !== undefined) {
    try {
      payload = JSON.parse(payloadText);
    } catch (error) {
      throw new UsageError(`--json payload is not valid JSON: ${(error as Error).message}`);
    }
  }
  const file = resolveEventsFile(cwd, env);
  const event: Record<string, unknown> = { topic, payload, ts: new Date().toISOString() };
  // Inside a loop, say which iteration and hat published it (for `ralph events --iteration`).
  const iteration = Number(env.RALPH_ITERATION);
  if (Number.isInteger(iteration) && iteration > 0) event.iteration = iteration;
  if (env.RALPH_HAT) event.hat = env.RALPH_HAT;
  // O_APPEND: concurrent emitters never interleave within a line; a torn last line is not glued onto.
  appendLine(file, JSON.stringify(event));
  return file;
}
