import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import { userStateDir } from '../../state/run-registry.ts';

/** The Bot API everyone uses; tests (and self-hosted Bot API servers) set another base. */
export const DEFAULT_TELEGRAM_API = 'https://api.telegram.org';

/** How a loop talks to its Telegram bot (`RObot`), resolved from the config and the environment. */
export interface TelegramSettings {
  /** The bot token: a secret (it is part of every API URL); never logged. */
  token: string;
  /** The Bot API base, without a trailing slash. */
  apiUrl: string;
  /** Status messages this often while the loop runs (ms), or undefined. */
  checkinMs: number | undefined;
  /**
   * The bot's shared state on this machine (`$XDG_STATE_HOME/ralph/telegram/<bot>`): the chat, the
   * update offset, the poller lock, the loops it serves and the messages it sent. `<bot>` is the
   * bot's numeric id (the token's part before `:`), so the directory name never holds the secret.
   */
  stateDir: string;
}

/**
 * The Telegram settings of a run, or undefined while `RObot.enabled` is false. The token comes from
 * `RALPH_TELEGRAM_BOT_TOKEN`, else `RObot.telegram.bot_token`; the API base from
 * `RALPH_TELEGRAM_API_URL`, else `RObot.telegram.api_url`, else api.telegram.org. Throws
 * `config_invalid` when it is enabled without a token.
 */
export function telegramSettings(
  config: Pick<RalphConfig, 'RObot'>,
  env: NodeJS.ProcessEnv,
): TelegramSettings | undefined {
  const robot = config.RObot;
  if (!robot.enabled) return undefined;
  const token = env.RALPH_TELEGRAM_BOT_TOKEN?.trim() || robot.telegram.bot_token;
  if (!token)
    throw new RalphError(
      'config_invalid',
      'RObot.enabled is true but there is no bot token: export RALPH_TELEGRAM_BOT_TOKEN=<token from @BotFather> (or set RObot.telegram.bot_token) — docs/operations/telegram.md',
    );
  const apiUrl = (
    env.RALPH_TELEGRAM_API_URL?.trim() ||
    robot.telegram.api_url ||
    DEFAULT_TELEGRAM_API
  ).replace(/\/+$/, '');
  if (!/^https?:\/\/\S+$/.test(apiUrl))
    throw new RalphError('config_invalid', `RALPH_TELEGRAM_API_URL must be an http:// or https:// URL`);
  return {
    token,
    apiUrl,
    checkinMs:
      robot.checkin_interval_seconds === undefined ? undefined : robot.checkin_interval_seconds * 1000,
    stateDir: join(userStateDir(env), 'telegram', botKey(token)),
  };
}

/** A name for the bot that is not a secret: its numeric id, or a hash of the token when it has none. */
function botKey(token: string): string {
  const id = /^(\d+):/.exec(token)?.[1];
  return id ?? `bot-${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}

/** Text with the token (and the token-bearing API path) blotted out: for errors and logs. */
export function redactToken(text: string, token: string): string {
  return token.length > 0 ? text.split(token).join('[redacted]') : text;
}
