/**
 * Which values of a resolved config hold a secret, and the config with those values masked: the one
 * decision behind `ralph run --dry-run`, `ralph config show`, `ralph config explain` (and its
 * `--json`) and the config cache, which never stores a config holding one.
 */

/** What a secret-bearing value is printed as, followed by ` (from <where it was set>)`. */
export const MASK = '***';

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A setting secret by what it is, whatever its value: the Telegram bot token, the notification
 * webhook (whoever holds its URL can post: Slack's and Discord's carry the credential in the path,
 * others in the query), and every variable given to the agent or a hook (`cli.env`, a hat's `env`, a
 * hook's `env`), whose
 * values are API keys and tokens more often than not.
 */
function secretByPlace(path: readonly string[]): boolean {
  if (path.length === 3 && path[0] === 'RObot' && path[1] === 'telegram' && path[2] === 'bot_token')
    return true;
  if (path.length === 2 && path[0] === 'notify' && path[1] === 'webhook') return true;
  if (path.length === 3 && path[0] === 'cli' && path[1] === 'env') return true;
  // A lifecycle hook's env (hooks.events.<phase-event>.<i>.env.<NAME>) is given to a command too.
  if (path.length === 6 && path[0] === 'hooks' && path[1] === 'events' && path[4] === 'env') return true;
  return path.length === 4 && path[0] === 'hats' && path[2] === 'env';
}

/** A URL carrying a credential of its own: a user and password, or a query parameter named like one. */
const CREDENTIAL_URL =
  /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*@|^[a-z][a-z0-9+.-]*:\/\/[^?#\s]*\?(?:[^#\s]*[&;])?[^=&#\s]*(?:token|key|secret|sig|signature|password|passwd|auth|code)[^=&#\s]*=/i;

/**
 * The path of every secret-bearing value of `config`: a setting secret by its place, a URL with a
 * credential in it (`RObot.telegram.api_url` behind an authenticating proxy), or a string the
 * redaction of logs (`redact`, from createRedactor) would blot out (a known key shape, the value
 * of a secret-named environment variable). Lists are walked, so one element of `cli.args` can be.
 */
export function secretPaths(config: unknown, redact: (text: string) => string): string[][] {
  const found: string[][] = [];
  const walk = (value: unknown, path: string[]): void => {
    if (path.length > 0 && secretByPlace(path) && value !== undefined) found.push(path);
    else if (isMap(value)) for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
    else if (Array.isArray(value)) for (const [i, v] of value.entries()) walk(v, [...path, String(i)]);
    else if (typeof value === 'string' && (CREDENTIAL_URL.test(value) || redact(value) !== value))
      found.push(path);
  };
  walk(config, []);
  return found;
}

/**
 * The secret-bearing values of `config` (secretPaths), as text: what the run's redaction blots out
 * beside the environment's secrets, so what config output masks and what logs redact never differ.
 */
export function secretValues(config: unknown, redact: (text: string) => string): string[] {
  return secretPaths(config, redact).flatMap((path) => {
    const value = path.reduce<unknown>((node, k) => (node as Record<string, unknown>)?.[k], config);
    return typeof value === 'string' || typeof value === 'number' ? [String(value)] : [];
  });
}

/** A copy of `config` with the value at `path` replaced by `value` (maps and lists are copied on the way). */
function replaced(config: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(config)) {
    const out = [...config];
    out[Number(head)] = replaced(out[Number(head)], rest, value);
    return out;
  }
  const map = config as Record<string, unknown>;
  return { ...map, [head]: replaced(map[head], rest, value) };
}

/**
 * `config` with every secret-bearing value (secretPaths) replaced by `*** (from SOURCE)`, SOURCE
 * saying where it was set (`sourceOf`: the layer file and line, the flag, or the variable), so
 * the output shows a secret is set and where to change it, never the secret.
 */
export function maskSecrets<T>(
  config: T,
  redact: (text: string) => string,
  sourceOf: (path: readonly string[]) => string,
): T {
  let out: unknown = config;
  for (const path of secretPaths(config, redact))
    out = replaced(out, path, `${MASK} (from ${sourceOf(path)})`);
  return out as T;
}

/** A config's secret-bearing values by path, held apart from the config (never written to a file). */
export type HeldSecrets = [path: string[], value: unknown][];

/**
 * `config` with every secret-bearing value replaced by MASK, and those values: what a file may
 * hold and what must go another way (the worker spec of a parallel run, its values through the
 * worker's environment). restoreSecrets puts them back.
 */
export function withoutSecrets<T>(
  config: T,
  redact: (text: string) => string,
): { config: T; secrets: HeldSecrets } {
  const secrets: HeldSecrets = [];
  let out: unknown = config;
  for (const path of secretPaths(config, redact)) {
    secrets.push([path, path.reduce<unknown>((node, k) => (node as Record<string, unknown>)[k], config)]);
    out = replaced(out, path, MASK);
  }
  return { config: out as T, secrets };
}

/** `config` with `secrets` (from withoutSecrets) back in their places. */
export function restoreSecrets<T>(config: T, secrets: HeldSecrets): T {
  let out: unknown = config;
  for (const [path, value] of secrets) out = replaced(out, path, value);
  return out as T;
}
