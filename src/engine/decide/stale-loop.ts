import { STALE_REPEATS } from './event-decisions.ts';

/** The stale-loop count kept in state.json: the last signature and how many times in a row it came. */
export interface StaleCount {
  last_signature: string | null;
  signature_repeats: number;
}

/** What one finished iteration brings to the count. */
export interface StaleInput {
  /** The signature of the events it published (eventSignature), or null when it published none. */
  signature: string | null;
  /** Persistent mode's idle turn: waiting by design. */
  idle: boolean;
  /** It changed files or made a commit. */
  worked: boolean;
}

/**
 * The stale-loop count after an iteration (pure), and whether the loop is stale: the same events
 * from the same hat STALE_REPEATS times in a row, none of those iterations changing a file or
 * committing. Work starts the count over (ralph-orchestrator's issue #234: a hat that reports the
 * same topic while it commits each step is making progress); an iteration that published nothing
 * leaves the count as it is.
 */
export function nextStaleCount(count: StaleCount, it: StaleInput): StaleCount & { stale: boolean } {
  if (it.idle) return { last_signature: null, signature_repeats: 0, stale: false };
  // The signature is kept (state.json shows what the hat last said), its count starts over: the
  // next iteration saying the same without work is the first of a run of repeats.
  if (it.worked) return { last_signature: it.signature, signature_repeats: 0, stale: false };
  if (it.signature === null) return { ...count, stale: false };
  const repeats = it.signature === count.last_signature ? count.signature_repeats + 1 : 1;
  return { last_signature: it.signature, signature_repeats: repeats, stale: repeats >= STALE_REPEATS };
}
