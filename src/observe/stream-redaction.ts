import type { LoopEvent } from './events.ts';
import { redactDeep } from './redact.ts';

/** An agent line longer than this is passed on in pieces (the buffer stays bounded). */
const MAX_CARRY = 64 * 1024;
/** Kept back when a long line is cut: longer than any credential, so none is split. */
const TAIL = 1024;

/**
 * Redacts the event stream before any sink sees it. Agent output arrives in pipe-sized chunks that
 * may split a key in two, where neither half matches; it is passed on in whole lines (a partial
 * last line waits for its newline, or for the end of the iteration), so every key is redacted
 * whole. Returns the redacted events to deliver for each incoming one (none while a line waits).
 */
export function createStreamRedaction(redact: (text: string) => string): (event: LoopEvent) => LoopEvent[] {
  const carry = new Map<string, { iteration: number; stream: 'stdout' | 'stderr'; text: string }>();
  const flush = (): LoopEvent[] => {
    const out: LoopEvent[] = [];
    for (const c of carry.values())
      if (c.text !== '')
        out.push({ type: 'agent.output', iteration: c.iteration, stream: c.stream, text: redact(c.text) });
    carry.clear();
    return out;
  };
  return (event) => {
    if (event.type !== 'agent.output') {
      const before = event.type === 'iteration.finished' || event.type === 'loop.finished' ? flush() : [];
      return [...before, redactDeep(event, redact)];
    }
    const key = `${event.iteration}:${event.stream}`;
    const text = (carry.get(key)?.text ?? '') + event.text;
    let cut = text.lastIndexOf('\n') + 1;
    if (cut === 0 && text.length > MAX_CARRY) {
      // No newline for a long while: cut at a space before the tail, never inside a key.
      const space = text.slice(0, text.length - TAIL).search(/\s\S*$/);
      cut = space > 0 ? space + 1 : text.length - TAIL;
    }
    carry.set(key, { iteration: event.iteration, stream: event.stream, text: text.slice(cut) });
    return cut > 0 ? [{ ...event, text: redact(text.slice(0, cut)) }] : [];
  };
}
