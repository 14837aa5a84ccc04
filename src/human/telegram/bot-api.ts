import { notJsonAnswer } from '../../errors.ts';
import { HttpFailure } from '../../http/http-failure.ts';
import { type HttpAnswer, httpRequest, type RetryPolicy } from '../../http/http-request.ts';
import { redactToken } from './settings.ts';

/** A failed Bot API call; its message never holds the token. */
export class TelegramApiError extends Error {
  /** The HTTP status, or undefined for a network error or timeout. */
  readonly status: number | undefined;
  /** Telegram's flood control: wait this long before trying again (ms). */
  readonly retryAfterMs: number | undefined;
  /** Telegram's own words (`description`), e.g. why a getUpdates was refused with 409. */
  readonly description: string | undefined;
  constructor(message: string, status?: number, retryAfterMs?: number, description?: string) {
    super(message);
    this.name = 'TelegramApiError';
    this.status = status;
    this.retryAfterMs = retryAfterMs;
    this.description = description;
  }

  /** Worth another try later: no answer, flood control (429) or a server error (5xx). */
  get transient(): boolean {
    return this.status === undefined || this.status === 429 || this.status >= 500;
  }
}

/** How one call is made: its cancel, its timeout (default 15 s), and its retries (default none). */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  retry?: RetryPolicy;
}

/** Calls Bot API methods (`sendMessage`, `getUpdates` …) as JSON POSTs. */
export interface BotApi {
  call<T>(method: string, params: object, o?: CallOptions): Promise<T>;
}

interface ApiReply {
  ok?: boolean;
  result?: unknown;
  description?: string;
  parameters?: { retry_after?: number };
}

/** Telegram's answer as its JSON object, or undefined when it is not one. */
function replyOf(text: string): ApiReply | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as ApiReply) : undefined;
  } catch {
    return undefined;
  }
}

/** Telegram's flood control says how long to wait in its body (`parameters.retry_after`, seconds). */
function floodWaitMs(answer: HttpAnswer): number | undefined {
  const after = replyOf(answer.text)?.parameters?.retry_after;
  return typeof after === 'number' && after >= 0 ? after * 1000 : undefined;
}

/**
 * A Bot API client on the HTTP core. The URL carries the token (`<api>/bot<token>/<method>`), so
 * every error message is built here from the method name and Telegram's description, redacted again.
 */
export function createBotApi(o: {
  apiUrl: string;
  token: string;
  fetchImpl?: typeof fetch;
  /** The wait between tries (tests replace it to see a long `retry_after` without waiting it). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<boolean>;
}): BotApi {
  return {
    async call<T>(method: string, params: object, c: CallOptions = {}) {
      let res: HttpAnswer;
      try {
        res = await httpRequest(
          {
            method: 'POST',
            url: `${o.apiUrl}/bot${o.token}/${method}`,
            traceUrl: `${o.apiUrl}/bot[redacted]/${method}`,
            headers: { 'content-type': 'application/json', 'user-agent': 'ralph-telegram' },
            body: JSON.stringify(params),
          },
          {
            timeoutMs: c.timeoutMs ?? 15_000,
            // getUpdates answers up to 100 updates of up to 4,096 characters each.
            maxBodyBytes: 8 * 1024 * 1024,
            bodyWaitMs: floodWaitMs,
            ...(c.retry ? { retry: c.retry } : {}),
            ...(c.signal ? { signal: c.signal } : {}),
            ...(o.fetchImpl ? { fetch: o.fetchImpl } : {}),
            ...(o.sleep ? { sleep: o.sleep } : {}),
          },
        );
      } catch (error) {
        if (!(error instanceof HttpFailure)) throw error;
        if (error.status === undefined) {
          const cause = error.cause as Error & { cause?: { code?: string } };
          const why = error.kind === 'network' ? (cause?.cause?.code ?? error.message) : 'timed out';
          throw new TelegramApiError(redactToken(`Telegram ${method}: ${why}`, o.token));
        }
        const reply = replyOf(error.text) ?? {};
        throw new TelegramApiError(
          redactToken(
            `Telegram ${method}: HTTP ${error.status}${reply.description ? ` ${reply.description}` : ''}`,
            o.token,
          ),
          error.status,
          error.retryAfterMs,
          reply.description,
        );
      }
      const reply = replyOf(res.text);
      // A proxy's HTML page, or a server that is not the Bot API: said with what it answered.
      if (reply === undefined && !isJson(res.text)) {
        const where = `Telegram ${method} at ${new URL(o.apiUrl).host}`;
        throw new TelegramApiError(
          redactToken(
            `${notJsonAnswer(where, res.status, res.headers.get('content-type'), res.text)}: check RObot.telegram.api_url (RALPH_TELEGRAM_API_URL) points at the Bot API`,
            o.token,
          ),
          res.status,
        );
      }
      if (reply?.ok) return reply.result as T;
      throw new TelegramApiError(
        redactToken(
          `Telegram ${method}: HTTP ${res.status}${reply?.description ? ` ${reply.description}` : ''}`,
          o.token,
        ),
        res.status,
        floodWaitMs(res),
        reply?.description,
      );
    },
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
