import { notJsonAnswer } from '../../errors.ts';
import { redactToken } from './settings.ts';

/** A failed Bot API call; its message never holds the token. */
export class TelegramApiError extends Error {
  /** The HTTP status, or undefined for a network error or timeout. */
  readonly status: number | undefined;
  /** Telegram's flood control: wait this long before trying again (ms). */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, status?: number, retryAfterMs?: number) {
    super(message);
    this.name = 'TelegramApiError';
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }

  /** A network error, a timeout, a 5xx or a 429 may go away; a 4xx (a bad token, a bad chat) will not. */
  get retryable(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429;
  }
}

/** Calls Bot API methods (`sendMessage`, `getUpdates` …) as JSON POSTs. */
export interface BotApi {
  call<T>(method: string, params: object, o?: { signal?: AbortSignal; timeoutMs?: number }): Promise<T>;
}

interface ApiReply {
  ok?: boolean;
  result?: unknown;
  description?: string;
  parameters?: { retry_after?: number };
}

/**
 * A Bot API client on `fetch`. The URL carries the token (`<api>/bot<token>/<method>`), so every
 * error message is built here from the method name and Telegram's description, redacted again.
 */
export function createBotApi(o: { apiUrl: string; token: string; fetchImpl?: typeof fetch }): BotApi {
  const doFetch = o.fetchImpl ?? fetch;
  return {
    async call<T>(method: string, params: object, c: { signal?: AbortSignal; timeoutMs?: number } = {}) {
      const timeout = AbortSignal.timeout(c.timeoutMs ?? 15_000);
      const signal = c.signal ? AbortSignal.any([c.signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await doFetch(`${o.apiUrl}/bot${o.token}/${method}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'ralph-telegram' },
          body: JSON.stringify(params),
          signal,
        });
      } catch (error) {
        const e = error as Error & { cause?: { code?: string } };
        const why =
          e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timed out' : (e.cause?.code ?? e.message);
        throw new TelegramApiError(redactToken(`Telegram ${method}: ${why}`, o.token));
      }
      let reply: ApiReply = {};
      let text = '';
      try {
        text = await res.text();
        const parsed = JSON.parse(text) as unknown;
        if (typeof parsed === 'object' && parsed !== null) reply = parsed as ApiReply;
      } catch {
        // A proxy's HTML page, or a server that is not the Bot API: said below, with what it answered.
        if (res.ok) {
          const where = `Telegram ${method} at ${new URL(o.apiUrl).host}`;
          throw new TelegramApiError(
            redactToken(
              `${notJsonAnswer(where, res.status, res.headers.get('content-type'), text)}: check RObot.telegram.api_url (RALPH_TELEGRAM_API_URL) points at the Bot API`,
              o.token,
            ),
            res.status,
          );
        }
      }
      if (res.ok && reply.ok) return reply.result as T;
      const retryAfter = reply.parameters?.retry_after;
      throw new TelegramApiError(
        redactToken(
          `Telegram ${method}: HTTP ${res.status}${reply.description ? ` ${reply.description}` : ''}`,
          o.token,
        ),
        res.status,
        retryAfter === undefined ? undefined : retryAfter * 1000,
      );
    },
  };
}
