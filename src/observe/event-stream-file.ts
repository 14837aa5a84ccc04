import { closeSync, openSync } from 'node:fs';
import { outputWrite } from '../state/write-faults.ts';
import type { LoopEvent } from './events.ts';

/** `.ralph/runs/<run-id>/stream.jsonl`: the engine's event stream, one redacted event per line. */
export const STREAM_FILE = 'stream.jsonl';

/** One line of the stream file: the event and when it happened (epoch ms). */
export interface StreamLine {
  at: number;
  event: LoopEvent;
}

/**
 * Writes the event stream to a file, so that other processes (the dashboard, `ralph explain`)
 * see exactly what the console and the TUI saw. Agent output chunks written in a burst are
 * merged into one line per 100 ms, which keeps the file near the size of the run log.
 */
export function createStreamFileSink(
  file: string,
  now: () => number = Date.now,
): { listener: (e: LoopEvent) => void; close(): void } {
  const fd = openSync(file, 'a');
  let pending: Extract<LoopEvent, { type: 'agent.output' }> | undefined;
  let pendingAt = 0;
  const write = (at: number, event: LoopEvent) => outputWrite(fd, file, `${JSON.stringify({ at, event })}\n`);
  const flush = () => {
    if (pending) write(pendingAt, pending);
    pending = undefined;
  };
  return {
    listener(e) {
      const t = now();
      if (e.type === 'agent.output') {
        if (
          pending &&
          pending.stream === e.stream &&
          pending.iteration === e.iteration &&
          t - pendingAt < 100
        ) {
          pending = { ...pending, text: pending.text + e.text };
          return;
        }
        flush();
        pending = e;
        pendingAt = t;
        return;
      }
      flush();
      write(t, e);
    },
    close() {
      try {
        flush();
      } finally {
        closeSync(fd);
      }
    },
  };
}
