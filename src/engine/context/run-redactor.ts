import type { RalphConfig } from '../../config/schema.ts';
import { secretValues } from '../../observe/config-secrets.ts';
import { createRedactor } from '../../observe/redact.ts';

/**
 * The run's one redaction: API keys never reach a file Ralph writes, its console or a text it sends
 * out. The values of secret-named variables of the environment are redacted, key shapes, and every
 * value config output masks (secretValues: cli.env and hat env values, the bot token, the webhook),
 * so the two can never disagree.
 */
export function runRedactor(env: NodeJS.ProcessEnv, config: RalphConfig): (text: string) => string {
  return createRedactor(env, secretValues(config, createRedactor(env)));
}
