import { UsageError } from '../../errors.ts';
import { createRedactor, redactDeep } from '../../observe/redact.ts';
import { eventsFileOf } from '../../state/events-log.ts';
import { appendLine } from '../../state/io/append-line.ts';
import { MAX_JSON_DEPTH, nestedDeeper } from '../../state/io/jsonl.ts';

/** Finds the events file: $RALPH_EVENTS_FILE, else the one named in `.ralph/current-events`. */
export function resolveEventsFile(cwd: string, env: NodeJS.ProcessEnv): string {
  return env.RALPH_EVENTS_FILE || eventsFileOf(env.RALPH_WORKSPACE_ROOT ?? cwd);
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
    // The event line holds the payload one level down; readers skip a line deeper than MAX_JSON_DEPTH.
    if (nestedDeeper(payloadText, MAX_JSON_DEPTH - 1))
      throw new UsageError(`--json payload nests deeper than ${MAX_JSON_DEPTH - 1} levels: flatten it`);
  }
  const file = resolveEventsFile(cwd, env);
  // What an agent publishes is redacted before it is written (the agent's environment carries the
  // run's secret-named variables and cli.env); the loop redacts again as it reads the line in.
  const redact = createRedactor(env);
  const event: Record<string, unknown> = {
    topic: redact(topic),
    payload: redactDeep(payload, redact),
    ts: new Date().toISOString(),
  };
  // Inside a loop, say which iteration and hat published it (for `ralph events --iteration`).
  const iteration = Number(env.RALPH_ITERATION);
  if (Number.isInteger(iteration) && iteration > 0) event.iteration = iteration;
  if (env.RALPH_HAT) event.hat = env.RALPH_HAT;
  // O_APPEND: concurrent emitters never interleave within a line; a torn last line is not glued onto.
  appendLine(file, JSON.stringify(event));
  return file;
}
