import type { RalphConfig } from '../../config/schema.ts';
import { secretValues } from '../../observe/config-secrets.ts';
import { createRedactor, redactDeep } from '../../observe/redact.ts';
import { setDebugSink, tracing } from '../../process/debug-trace.ts';

/**
 * The run's one redaction: API keys never reach a file Ralph writes, its console or a text it sends
 * out. The values of secret-named variables of the environment are redacted, key shapes, and every
 * value config output masks (secretValues: cli.env and hat env values, the bot token, the webhook),
 * so the two can never disagree.
 */
export function runRedactor(env: NodeJS.ProcessEnv, config: RalphConfig): (text: string) => string {
  return createRedactor(env, secretValues(config, createRedactor(env)));
}

/**
 * While a run goes on, the debug trace (when on) passes the run's redaction too: a config's secret
 * (a `cli.env` value repeated in `cli.args`, a gate command) is known here, not to the trace's sink.
 * Returns what puts the sink back; `redact` is built only when the trace is on.
 */
export function redactDebugTrace(redact: () => (text: string) => string): () => void {
  if (!tracing()) return () => {};
  const run = redact();
  const outer = setDebugSink(undefined);
  setDebugSink(outer && ((event) => outer(redactDeep(event, run))));
  return () => {
    setDebugSink(outer);
  };
}
