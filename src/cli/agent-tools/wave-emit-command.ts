import { randomBytes } from 'node:crypto';
import { UsageError } from '../../errors.ts';
import { createRedactor } from '../../observe/redact.ts';
import { appendLine } from '../../state/io/append-line.ts';
import { resolveEventsFile } from './emit-command.ts';

/** What `ralph wave emit` wrote: the wave's id and the events file. */
export interface WaveEmitted {
  waveId: string;
  file: string;
}

/**
 * `ralph wave emit <topic> --payloads P...`: one event per payload, all in one write, each tagged
 * with the wave's id, its index and the wave's size (ralph-orchestrator's line format). A hat with
 * `concurrency` that they trigger runs one agent per event. Refused inside a wave's member: waves
 * do not nest.
 */
export function waveEmitCommand(
  topic: string,
  payloads: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): WaveEmitted {
  if (env.RALPH_WAVE_WORKER === '1')
    throw new UsageError(
      'ralph wave emit is refused inside a wave: a wave member publishes its result with `ralph emit <topic> "<result>"`',
    );
  if (!topic || topic.startsWith('-') || /[\s"<>]/.test(topic))
    throw new UsageError('usage: ralph wave emit <topic> --payloads <payload> [payload…]');
  if (payloads.length === 0)
    throw new UsageError('ralph wave emit needs at least one payload: --payloads "<first>" "<second>" …');
  const file = resolveEventsFile(cwd, env);
  // Redacted before they are written, as `ralph emit` does; the loop redacts again as it reads.
  const redact = createRedactor(env);
  const waveId = `w-${Date.now().toString(16)}-${process.pid}-${randomBytes(2).toString('hex')}`;
  const ts = new Date().toISOString();
  const iteration = Number(env.RALPH_ITERATION);
  const lines = payloads.map((payload, index) =>
    JSON.stringify({
      topic,
      payload: redact(payload),
      ts,
      ...(Number.isInteger(iteration) && iteration > 0 ? { iteration } : {}),
      ...(env.RALPH_HAT ? { hat: env.RALPH_HAT } : {}),
      wave_id: waveId,
      wave_index: index,
      wave_total: payloads.length,
    }),
  );
  // One write: the loop never reads half a wave.
  appendLine(file, lines.join('\n'));
  return { waveId, file };
}
