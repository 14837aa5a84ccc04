import { statSync } from 'node:fs';
import { ExitCode, UsageError } from '../../errors.ts';
import { type EventLine, eventLineParser, readEventsSince } from '../../state/events-log.ts';
import { followJsonl } from '../../state/io/jsonl.ts';
import { resolveEventsFile } from '../agent-tools/emit-command.ts';
import type { CliIO } from '../io.ts';

interface EventsFlags {
  last?: number | undefined;
  topic?: string | undefined;
  iteration?: number | undefined;
  format?: string | undefined;
  follow?: boolean | undefined;
}

function formatRow(e: EventLine): string {
  const payload =
    e.payload === null || e.payload === undefined
      ? ''
      : typeof e.payload === 'string'
        ? e.payload
        : JSON.stringify(e.payload);
  const oneLine = payload.replace(/\s+/g, ' ');
  const meta = [e.iteration ? `#${e.iteration}` : '', e.hat ?? '', e.source ?? 'agent']
    .filter(Boolean)
    .join(' ');
  return `${e.ts.slice(11, 19) || '--:--:--'}  ${e.topic.padEnd(20)} ${meta.padEnd(28)} ${oneLine.length > 80 ? `${oneLine.slice(0, 77)}...` : oneLine}`;
}

/** `ralph events`: the run's event log, filtered; `-f` keeps printing new events. */
export async function eventsCommand(flags: EventsFlags, io: CliIO, signal?: AbortSignal): Promise<number> {
  const format = flags.format ?? 'table';
  if (format !== 'table' && format !== 'json')
    throw new UsageError(`--format must be table or json, got "${format}"`);
  if (flags.follow && format === 'json')
    throw new UsageError('-f prints a table; use --format table (or omit -f)');
  const { last, iteration } = flags;
  const file = resolveEventsFile(io.cwd, { ...io.env, RALPH_EVENTS_FILE: undefined });
  const keep = (e: EventLine) =>
    (flags.topic === undefined || e.topic === flags.topic) &&
    (iteration === undefined || e.iteration === iteration);

  const chunk = readEventsSince(file, 0);
  reportSkipped(file, chunk, io);
  let events = chunk.records.filter(keep);
  if (last !== undefined) events = events.slice(-last);
  if (format === 'json') {
    io.out(`${JSON.stringify(events, null, 2)}\n`);
    return ExitCode.ok;
  }
  for (const e of events) io.out(`${formatRow(e)}\n`);
  if (!flags.follow) return ExitCode.ok;
  for await (const next of followJsonl(file, eventLineParser, { from: chunk.nextOffset, signal }))
    for (const e of next.records) if (keep(e)) io.out(`${formatRow(e)}\n`);
  return ExitCode.ok;
}

/**
 * Lines of the events file that are not events (damaged, or a last line a crash left unfinished)
 * are skipped, said on stderr, and left in the file: the output is never silently partial.
 */
function reportSkipped(file: string, chunk: ReturnType<typeof readEventsSince>, io: CliIO): void {
  const bad = chunk.items.flatMap((i) => (i.ok ? [] : [i]));
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    // no file: nothing was skipped
  }
  const unfinished = size > chunk.nextOffset;
  if (bad.length === 0 && !unfinished) return;
  const parts: string[] = [];
  if (bad.length > 0) parts.push(`${bad.length} line(s) that are not events (first: ${bad[0]?.error})`);
  if (unfinished) parts.push('an unfinished last line (a write cut short)');
  io.err(`ralph: ${file}: skipped ${parts.join(' and ')}; the file is left as it is\n`);
}
