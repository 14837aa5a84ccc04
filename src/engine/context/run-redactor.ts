import type { RalphConfig } from '../../config/schema.ts';
import { createRedactor } from '../../observe/redact.ts';

/**
 * The run's one redaction: API keys never reach a file Ralph writes, its console or a text it sends
 * out. The values of secret-named variables of the environment and of cli.env are redacted, and key
 * shapes; a Telegram bot token from ralph.yml is a secret too (RALPH_TELEGRAM_BOT_TOKEN is one by its name).
 */
export function runRedactor(env: NodeJS.ProcessEnv, config: RalphConfig): (text: string) => string {
  return createRedactor({
    ...env,
    ...config.cli.env,
    RALPH_ROBOT_BOT_TOKEN: config.RObot.telegram.bot_token,
    // A webhook URL carries its own credential (Slack's and Discord's do in their path).
    RALPH_NOTIFY_WEBHOOK_SECRET: config.notify.webhook,
  });
}
