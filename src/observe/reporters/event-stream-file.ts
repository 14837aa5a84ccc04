import { closeSync } from 'node:fs';
import { openOutputFile, outputWrite } from '../../state/io/write-faults.ts';
import type { LoopEvent } from '../events.ts';
import { type AgentText, isText } from '../output-cap.ts';
import type { Reporter } from '../reporter.ts';

/** `.ralph/runs/<run-id>/stream.jsonl`: the engine's event stream, one redacted event per line. */
export const STREAM_FILE = 'stream.jsonl';

/** One line of the stream file: the event and when it happened (epoch ms). */
export interface StreamLine {
  at: number;
  event: LoopEvent;
}

/**
 * Writes the event stream to a file, so that other processes (the dashboard, `ralph explain`)
 * see what the console and the TUI saw. The agent's output is stored once, in the run log: here
 * are its parsed events (their text bounded per iteration upstream, see output-cap.ts), the text
 * lines of a 100 ms burst merged into one event, and no raw `agent.output` chunks.
 */
export function createStreamFileSink(
  file: string,
  now: () => number = Date.now,
): Reporter & { close(): void } {
  const fd = openOutputFile(file);
  let pending: { iteration: number; lines: string[]; at: number } | undefined;
  // A burst's lines reach the file within 100 ms even when the agent then falls silent.
  let timer: NodeJS.Timeout | undefined;
  const write = (at: number, event: LoopEvent) => outputWrite(fd, file, `${JSON.stringify({ at, event })}\n`);
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending)
      write(pending.at, {
        type: 'agent.event',
        iteration: pending.iteration,
        event: { type: 'text', text: pending.lines.join('\n') },
      });
    pending = undefined;
  };
  // A write that fails in the timer (a full disk) is thrown by the next event or by close, on the
  // engine's side, instead of escaping from the timer as an uncaught exception.
  let deferred: { error: unknown } | undefined;
  const flushLater = () => {
    try {
      flush();
    } catch (error) {
      deferred ??= { error };
    }
  };
  const rethrow = () => {
    if (!deferred) return;
    const { error } = deferred;
    deferred = undefined;
    throw error;
  };
  const addText = (e: AgentText, t: number) => {
    if (pending && (pending.iteration !== e.iteration || t - pending.at >= 100)) flush();
    if (!pending) {
      pending = { iteration: e.iteration, lines: [], at: t };
      timer = setTimeout(flushLater, 100);
      timer.unref();
    }
    pending.lines.push(e.event.text);
  };
  return {
    onEvent(e) {
      rethrow();
      const t = now();
      if (e.type === 'agent.output') return;
      if (isText(e)) return addText(e, t);
      flush();
      write(t, e);
    },
    close() {
      try {
        rethrow();
        flush();
      } finally {
        closeSync(fd);
      }
    },
  };
}
