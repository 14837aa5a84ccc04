import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One Bot API call the server received. */
export interface BotRequest {
  method: string;
  /** The token from the path (`/bot<token>/<method>`): tests check it is the one configured. */
  token: string;
  body: Record<string, any>;
  at: number;
  /** The HTTP status it was answered with. */
  status: number;
}

/** Inline buttons, in rows. */
export type Keyboard = { text: string; callback_data: string }[][];

/** A message the bot sent (sendMessage), as the chat sees it. */
export interface BotMessage {
  message_id: number;
  chat_id: number;
  text: string;
  /** The buttons it was sent with (`buttons()` tells what it shows after edits). */
  reply_markup?: { inline_keyboard: Keyboard };
}

/**
 * A scripted Telegram Bot API on 127.0.0.1 (a free port): getUpdates long-polls (held until the test
 * injects an update or the poll's `timeout` runs out), sendMessage, answerCallbackQuery and
 * editMessageReplyMarkup (a 400, as Telegram's, when it changes nothing); every request is recorded.
 * Like Telegram, a second getUpdates while one is held is refused with 409 (counted in `conflicts`),
 * a getUpdates with an `offset` confirms (forgets) every update below it, one without returns the
 * earliest unconfirmed onwards, and a webhook set blocks getUpdates until deleteWebhook.
 */
export interface TelegramServer {
  /** The API base for RALPH_TELEGRAM_API_URL. */
  url: string;
  requests: BotRequest[];
  messages: BotMessage[];
  /** getUpdates calls that overlapped another (Telegram answers them 409 Conflict). */
  conflicts: number;
  /** The human writes in the chat (a reply when `replyTo` names a bot message); returns the update id. */
  userMessage(text: string, o?: { replyTo?: number; chatId?: number }): number;
  /** The human presses an inline button of bot message `messageId`. */
  pressButton(messageId: number, data: string): number;
  /** The next `n` calls of `method` fail with HTTP `status` (with Telegram's `description` and `parameters`, e.g. `{ retry_after: 45 }`). */
  failNext(
    method: string,
    n: number,
    status?: number,
    reply?: { description?: string; parameters?: Record<string, unknown> },
  ): void;
  /** A webhook is set on the bot: getUpdates answers 409 (Telegram's words) until deleteWebhook. */
  setWebhook(url: string): void;
  /** The webhook set now, or undefined. */
  readonly webhook: string | undefined;
  /** The inline keyboard bot message `messageId` shows now (after edits); undefined for no such message. */
  buttons(messageId: number): Keyboard | undefined;
  /** Resolves with the first bot message matching `test` (waits for it). */
  waitForMessage(test: (m: BotMessage) => boolean, timeoutMs?: number): Promise<BotMessage>;
  close(): Promise<void>;
}

export const CHAT_ID = 4242;

/** `firstUpdateId`: where update ids start (Telegram picks a random one after a week of quiet). */
export async function startTelegramServer(o: { firstUpdateId?: number } = {}): Promise<TelegramServer> {
  const requests: BotRequest[] = [];
  const messages: BotMessage[] = [];
  const keyboards = new Map<number, Keyboard>();
  const updates: Record<string, unknown>[] = [];
  const failures = new Map<
    string,
    { n: number; status: number; reply: { description?: string; parameters?: Record<string, unknown> } }
  >();
  let webhook: string | undefined;
  let waiting: (() => void) | undefined;
  let nextUpdate = o.firstUpdateId ?? 1;
  let nextMessage = 100;
  let polling = false;
  let conflicts = 0;
  const watchers = new Set<() => void>();

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: Record<string, any>) => {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
    if (!m) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const [, token, method] = m as unknown as [string, string, string];
    const record: BotRequest = { method, token, body, at: Date.now(), status: 200 };
    requests.push(record);
    const fail = failures.get(method);
    if (fail && fail.n > 0) {
      fail.n--;
      record.status = fail.status;
      return reply(res, fail.status, {
        ok: false,
        error_code: fail.status,
        description: 'Scripted failure',
        ...fail.reply,
      });
    }
    switch (method) {
      case 'getUpdates': {
        if (webhook !== undefined) {
          record.status = 409;
          return reply(res, 409, {
            ok: false,
            error_code: 409,
            description:
              "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
          });
        }
        if (polling) {
          conflicts++;
          record.status = 409;
          return reply(res, 409, {
            ok: false,
            error_code: 409,
            description:
              'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
          });
        }
        polling = true;
        // Telegram: an offset confirms every update below it; they are never returned again.
        if (body.offset !== undefined) {
          const offset = Number(body.offset);
          updates.splice(0, updates.length, ...updates.filter((u) => (u.update_id as number) >= offset));
        }
        const due = () => [...updates];
        if (due().length === 0) {
          await new Promise<void>((r) => {
            const timer = setTimeout(r, Math.min(Number(body.timeout ?? 0), 30) * 1000);
            waiting = () => {
              clearTimeout(timer);
              r();
            };
            res.on('close', () => waiting?.());
          });
          waiting = undefined;
        }
        polling = false;
        return reply(res, 200, { ok: true, result: due() });
      }
      case 'sendMessage': {
        const msg: BotMessage = {
          message_id: nextMessage++,
          chat_id: Number(body.chat_id),
          text: String(body.text),
          ...(body.reply_markup ? { reply_markup: body.reply_markup } : {}),
        };
        messages.push(msg);
        if (msg.reply_markup) keyboards.set(msg.message_id, msg.reply_markup.inline_keyboard);
        for (const w of watchers) w();
        return reply(res, 200, { ok: true, result: { ...msg, chat: { id: msg.chat_id, type: 'private' } } });
      }
      case 'deleteWebhook':
        webhook = undefined;
        return reply(res, 200, { ok: true, result: true, description: 'Webhook was deleted' });
      case 'answerCallbackQuery':
        return reply(res, 200, { ok: true, result: true });
      case 'editMessageReplyMarkup': {
        // Like Telegram: an edit that changes nothing (a message without buttons) is a 400.
        const keyboard = (body.reply_markup?.inline_keyboard ?? []) as Keyboard;
        const target = messages.find((x) => x.message_id === Number(body.message_id));
        const now = target ? (keyboards.get(target.message_id) ?? []) : undefined;
        if (!target || JSON.stringify(now) === JSON.stringify(keyboard)) {
          record.status = 400;
          return reply(res, 400, {
            ok: false,
            error_code: 400,
            description: target
              ? 'Bad Request: message is not modified'
              : 'Bad Request: message to edit not found',
          });
        }
        keyboards.set(target.message_id, keyboard);
        return reply(res, 200, { ok: true, result: true });
      }
      default:
        record.status = 404;
        return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, any> = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {}
      void handle(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;

  const push = (update: Record<string, unknown>) => {
    const id = nextUpdate++;
    updates.push({ update_id: id, ...update });
    waiting?.();
    return id;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    messages,
    get conflicts() {
      return conflicts;
    },
    userMessage(text, o = {}) {
      const chatId = o.chatId ?? CHAT_ID;
      return push({
        message: {
          message_id: 10_000 + nextUpdate,
          chat: { id: chatId, type: 'private' },
          text,
          ...(o.replyTo ? { reply_to_message: { message_id: o.replyTo } } : {}),
        },
      });
    },
    pressButton(messageId, data) {
      return push({
        callback_query: {
          id: `cb-${nextUpdate}`,
          data,
          message: { message_id: messageId, chat: { id: CHAT_ID, type: 'private' } },
        },
      });
    },
    buttons(messageId) {
      if (!messages.some((m) => m.message_id === messageId)) return undefined;
      return keyboards.get(messageId) ?? [];
    },
    failNext(method, n, status = 500, failReply = {}) {
      failures.set(method, { n, status, reply: failReply });
    },
    setWebhook(url) {
      webhook = url;
    },
    get webhook() {
      return webhook;
    },
    waitForMessage(test, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(test);
          if (!found) return false;
          watchers.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(
            new Error(
              `no bot message matched within ${timeoutMs} ms; sent: ${JSON.stringify(messages.map((m) => m.text))}`,
            ),
          );
        }, timeoutMs);
        watchers.add(check);
        check();
      });
    },
    close: () =>
      new Promise((r) => {
        waiting?.();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
