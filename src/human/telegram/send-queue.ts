import { setTimeout as sleep } from 'node:timers/promises';
import { type BotApi, TelegramApiError } from './bot-api.ts';

/** The longest flood-control wait (`retry_after`) honoured as asked; a longer one is waited this long. */
export const MAX_FLOOD_WAIT_MS = 10 * 60_000;
/** The pause between rounds of retries of a message that must get through, when Telegram asks none. */
const MUST_DELIVER_PAUSE_MS = 30_000;

/** One message for the chat: the Bot API method, its parameters, and what to do with the result. */
export interface Outgoing {
  method: string;
  /** The parameters, given the chat id (known once the human has written to the bot). */
  params: (chatId: number) => object;
  onSent?: ((result: unknown) => void) | undefined;
  /** What it is, for a failure's message ("the question q-1a2b"). */
  what: string;
  /** A question or approval: retried until sent or the run stops (the human's answer depends on it). */
  mustDeliver?: boolean;
}

export interface SendQueueOptions {
  api: BotApi;
  /** The chat to send to, or undefined while nobody has written to the bot yet (messages wait). */
  chatId: () => number | undefined;
  /** A message given up on, or dropped (never thrown: the loop goes on). */
  onProblem: (message: string) => void;
  /** The pauses before each retry (ms); default 0.5 s, 1 s, 2 s: three retries. */
  retryDelaysMs?: readonly number[];
  /** Messages waiting at most; past it the oldest is dropped (default 50). */
  maxQueued?: number;
  /** How often to look for a chat id while none is known (ms). */
  chatPollMs?: number;
  /** The pause between rounds of retries of a must-deliver message without a `retry_after` (ms). */
  mustDeliverPauseMs?: number;
}

/** A bounded queue of messages sent one at a time in the background, with retries. */
export interface SendQueue {
  push(message: Outgoing): void;
  /** Waits at most `waitMs` for what is queued to go out, then gives up on the rest. */
  close(waitMs: number): Promise<void>;
}

/**
 * Sends in order, one at a time, never blocking the caller: a network error, a 5xx or a 429 is
 * retried after each of `retryDelaysMs` (the HTTP core's retry; a 429's `retry_after` instead, in
 * full up to {@link MAX_FLOOD_WAIT_MS}). A notification is then given up on, said by `onProblem`; a
 * question or approval (`mustDeliver`) goes on being retried, round after round, until it is sent or
 * the run stops. An error no retry mends (a 400) is reported at once. Over `maxQueued`, the oldest
 * notification is dropped (a question never is).
 */
export function createSendQueue(o: SendQueueOptions): SendQueue {
  const delays = o.retryDelaysMs ?? [500, 1000, 2000];
  const max = o.maxQueued ?? 50;
  const queue: Outgoing[] = [];
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  let drained: (() => void) | undefined;

  const sendOne = async (m: Outgoing, chatId: number): Promise<void> => {
    for (let round = 0; ; round++) {
      try {
        const result = await o.api.call(m.method, m.params(chatId), {
          signal: stopping.signal,
          retry: { delaysMs: delays, maxWaitMs: MAX_FLOOD_WAIT_MS },
        });
        m.onSent?.(result);
        return;
      } catch (error) {
        const again = m.mustDeliver && error instanceof TelegramApiError && error.transient;
        if (!again || stopping.signal.aborted) {
          o.onProblem(`could not send ${m.what} to Telegram: ${(error as Error).message}`);
          return;
        }
        if (round === 0)
          o.onProblem(`Telegram: ${m.what} is not sent yet (${error.message}); retrying until it is`);
        const wait = Math.min(
          error.retryAfterMs ?? o.mustDeliverPauseMs ?? MUST_DELIVER_PAUSE_MS,
          MAX_FLOOD_WAIT_MS,
        );
        if (!(await pause(wait, stopping.signal))) {
          o.onProblem(`Telegram: ${m.what} was not sent before the run ended`);
          return;
        }
      }
    }
  };

  const work = async () => {
    while (queue.length > 0 && !stopping.signal.aborted) {
      const chatId = o.chatId();
      if (chatId === undefined) {
        await pause(o.chatPollMs ?? 1000, stopping.signal);
        continue;
      }
      const next = queue.shift() as Outgoing;
      await sendOne(next, chatId);
    }
    running = undefined;
    drained?.();
  };

  return {
    push(message) {
      if (stopping.signal.aborted) return;
      queue.push(message);
      if (queue.length > max) {
        // The oldest notification goes; questions stay (their answer is what the loop waits for).
        const at = queue.findIndex((q) => !q.mustDeliver);
        if (at >= 0) {
          const [dropped] = queue.splice(at, 1);
          o.onProblem(`Telegram: ${max} messages are waiting to be sent; dropped ${dropped?.what}`);
        }
      }
      running ??= work();
    },
    async close(waitMs) {
      if (running) {
        const done = new Promise<void>((r) => {
          drained = r;
        });
        await Promise.race([done, sleep(waitMs, undefined, { ref: false })]);
      }
      stopping.abort();
      if (queue.length > 0) o.onProblem(`Telegram: ${queue.length} message(s) not sent before the run ended`);
      queue.length = 0;
    },
  };
}

/** Sleeps `ms`, or less when `signal` aborts; true when it slept the whole time. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
