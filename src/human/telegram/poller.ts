import type { LockHolder } from '../../state/io/lock.ts';
import { ralphPaths } from '../../state/paths.ts';
import { readQuestions } from '../control-files.ts';
import { type Applied, applyUpdate } from './apply-update.ts';
import { type BotApi, TelegramApiError } from './bot-api.ts';
import {
  alreadyHandled,
  findSent,
  readBotFile,
  servedLoops,
  stopLeading,
  trustedOffset,
  tryLeadPolling,
  writeBotFile,
} from './bot-state.ts';
import { routeUpdate, type TelegramUpdate } from './route-update.ts';
import { pause } from './send-queue.ts';

export interface PollerOptions {
  api: BotApi;
  /** The bot's shared state directory (settings.stateDir). */
  dir: string;
  /** This process as the poller lock's holder. */
  me: LockHolder & { started_at: string };
  signal: AbortSignal;
  /** What the chat gets back for an update (sent through the loop's send queue). */
  respond: (applied: Applied, update: TelegramUpdate, chatId: number) => void;
  onProblem: (message: string) => void;
  /** getUpdates' long-poll wait (s); how often a loop that is not the poller tries to become it (ms). */
  longPollSeconds?: number;
  followerRetryMs?: number;
  now?: () => number;
}

/** Why Telegram refused getUpdates with 409, from its description. */
function conflictOf(error: unknown): 'webhook' | 'other_poller' | undefined {
  if (!(error instanceof TelegramApiError) || error.status !== 409) return undefined;
  // "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
  if (/webhook is active/i.test(error.description ?? '')) return 'webhook';
  // "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
  if (/other getUpdates request/i.test(error.description ?? '')) return 'other_poller';
  return undefined;
}

/**
 * Long-polls getUpdates while this process is the bot's poller (Telegram answers one getUpdates
 * caller at a time, so of the loops sharing a bot on this machine, the one holding `poller.lock`
 * polls for all of them; when it ends, another takes over). Each update's offset is saved before
 * it is applied, so a restart never applies it twice (a day-old offset is not sent: trustedOffset).
 * A 409 because a webhook is set removes the webhook once; one because another program polls backs off. Messages from any chat but the bot's one are
 * ignored: the first private chat that writes to the bot is its chat.
 */
export async function runPoller(o: PollerOptions): Promise<void> {
  let failures = 0;
  let leading = false;
  let webhookRemoved = false;
  const now = o.now ?? Date.now;
  try {
    while (!o.signal.aborted) {
      leading = tryLeadPolling(o.dir, o.me);
      if (!leading) {
        await pause(o.followerRetryMs ?? 2000, o.signal);
        continue;
      }
      let updates: TelegramUpdate[];
      try {
        const offset = trustedOffset(readBotFile(o.dir), now());
        const wait = o.longPollSeconds ?? 25;
        updates = await o.api.call<TelegramUpdate[]>(
          'getUpdates',
          {
            ...(offset === undefined ? {} : { offset }),
            timeout: wait,
            allowed_updates: ['message', 'callback_query'],
          },
          { signal: o.signal, timeoutMs: (wait + 10) * 1000 },
        );
        failures = 0;
      } catch (error) {
        if (o.signal.aborted) break;
        const conflict = conflictOf(error);
        // A webhook set on the token blocks getUpdates for good: removed once, its pending updates kept.
        if (conflict === 'webhook' && !webhookRemoved) {
          webhookRemoved = true;
          if (await removeWebhook(o)) continue;
        }
        if (conflict === 'other_poller' && failures === 0)
          o.onProblem(
            "Telegram: another program is reading this bot's updates (getUpdates), e.g. Ralph or a bot on another machine with the same token; only one may. Retrying every 30 s; stop the other one, or give this run its own bot",
          );
        // Said once per run of failures, then retried ever more slowly (at most every 30 s).
        if (failures === 0 && conflict !== 'other_poller')
          o.onProblem(`Telegram: cannot read the chat: ${(error as Error).message}`);
        failures++;
        const backoff = conflict === 'other_poller' ? 30_000 : 1000 * 2 ** Math.min(failures, 5);
        await pause(Math.min(30_000, backoff), o.signal);
        continue;
      }
      for (const update of updates) handle(o, update, now());
    }
  } finally {
    if (leading) stopLeading(o.dir, o.me);
  }
}

/** deleteWebhook, keeping the updates waiting; said once as a notice. True when it worked. */
async function removeWebhook(o: PollerOptions): Promise<boolean> {
  try {
    await o.api.call('deleteWebhook', { drop_pending_updates: false }, { signal: o.signal });
  } catch (error) {
    o.onProblem(
      `Telegram: the bot has a webhook set, so it cannot be polled, and deleteWebhook failed: ${(error as Error).message}; remove the webhook (deleteWebhook) or use another bot`,
    );
    return false;
  }
  o.onProblem(
    'Telegram: the bot had a webhook set, which blocks reading the chat; Ralph removed it (deleteWebhook, pending updates kept)',
  );
  return true;
}

function handle(o: PollerOptions, update: TelegramUpdate, nowMs: number): void {
  const state = readBotFile(o.dir);
  if (alreadyHandled(update.update_id, state, nowMs)) return;
  const chat = update.message?.chat ?? update.callback_query?.message?.chat;
  const adopt = state.chat_id === undefined && update.message?.chat.type === 'private';
  const chatId = adopt ? update.message?.chat.id : state.chat_id;
  writeBotFile(o.dir, {
    chat_id: chatId,
    offset: update.update_id + 1,
    offset_at: new Date(nowMs).toISOString(),
  });
  if (chat === undefined || chatId === undefined || chat.id !== chatId) return;
  const routed = routeUpdate(
    update,
    servedLoops(o.dir),
    (id) => findSent(o.dir, id),
    (workspace, id) => readQuestions(ralphPaths(workspace).questions).get(id)?.options,
  );
  try {
    o.respond(applyUpdate(routed), update, chatId);
  } catch (error) {
    // A file that cannot be written (a full disk): the chat hears it, the poller goes on.
    o.respond({ text: `Ralph could not do that: ${(error as Error).message}` }, update, chatId);
  }
}
