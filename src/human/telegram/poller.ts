import type { LockHolder } from '../../state/io/lock.ts';
import { ralphPaths } from '../../state/paths.ts';
import { readQuestions } from '../control-files.ts';
import { type Applied, applyUpdate } from './apply-update.ts';
import type { BotApi } from './bot-api.ts';
import {
  findSent,
  readBotFile,
  servedLoops,
  stopLeading,
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
}

/**
 * Long-polls getUpdates while this process is the bot's poller (Telegram answers one getUpdates
 * caller at a time, so of the loops sharing a bot on this machine, the one holding `poller.lock`
 * polls for all of them; when it ends, another takes over). Each update's offset is saved before
 * it is applied, so a restart never applies it twice. Messages from any chat but the bot's one are
 * ignored: the first private chat that writes to the bot is its chat.
 */
export async function runPoller(o: PollerOptions): Promise<void> {
  let failures = 0;
  let leading = false;
  try {
    while (!o.signal.aborted) {
      leading = tryLeadPolling(o.dir, o.me);
      if (!leading) {
        await pause(o.followerRetryMs ?? 2000, o.signal);
        continue;
      }
      let updates: TelegramUpdate[];
      try {
        const offset = readBotFile(o.dir).offset;
        const wait = o.longPollSeconds ?? 25;
        updates = await o.api.call<TelegramUpdate[]>(
          'getUpdates',
          { offset, timeout: wait, allowed_updates: ['message', 'callback_query'] },
          { signal: o.signal, timeoutMs: (wait + 10) * 1000 },
        );
        failures = 0;
      } catch (error) {
        if (o.signal.aborted) break;
        // Said once per run of failures, then retried ever more slowly (at most every 30 s).
        if (failures === 0) o.onProblem(`Telegram: cannot read the chat: ${(error as Error).message}`);
        failures++;
        await pause(Math.min(30_000, 1000 * 2 ** Math.min(failures, 5)), o.signal);
        continue;
      }
      for (const update of updates) handle(o, update);
    }
  } finally {
    if (leading) stopLeading(o.dir, o.me);
  }
}

function handle(o: PollerOptions, update: TelegramUpdate): void {
  const state = readBotFile(o.dir);
  if (update.update_id < state.offset) return;
  const chat = update.message?.chat ?? update.callback_query?.message?.chat;
  const adopt = state.chat_id === undefined && update.message?.chat.type === 'private';
  const chatId = adopt ? update.message?.chat.id : state.chat_id;
  writeBotFile(o.dir, { chat_id: chatId, offset: update.update_id + 1 });
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
