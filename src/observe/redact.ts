/**
 * Shapes of well-known credentials (Anthropic, OpenAI, Google, GitHub, Slack, AWS, bearer headers,
 * Slack and Discord webhook URLs),
 * each with a literal it contains: text without it is not searched (a look-behind over megabytes of
 * output is slow; `includes` is not).
 */
const KEY_SHAPES: [RegExp, string][] = [
  [/sk-ant-[A-Za-z0-9_-]{16,}/g, 'sk-ant-'],
  [/sk-(?:proj-)?[A-Za-z0-9_-]{20,}/g, 'sk-'],
  [/AIza[0-9A-Za-z_-]{30,}/g, 'AIza'],
  [/gh[pousr]_[A-Za-z0-9]{30,}/g, '_'],
  [/github_pat_[A-Za-z0-9_]{30,}/g, 'github_pat_'],
  [/xox[abprs]-[A-Za-z0-9-]{10,}/g, 'xox'],
  [/AKIA[0-9A-Z]{16}/g, 'AKIA'],
  [/(?<=[Bb]earer\s+)[A-Za-z0-9._~+/-]{20,}=*/g, 'earer'],
  // Webhook URLs are credentials: whoever holds one can post to the channel.
  [/https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]{16,}/g, 'hooks.slack.com/'],
  [
    /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{20,}/g,
    '/api/webhooks/',
  ],
];

/** Shorter than any value or shape redacted (values of 8 characters and up, keys of 20 and up). */
const MIN_SECRET_CHARS = 8;

const SECRET_NAME = /(API_KEY|APIKEY|_TOKEN|TOKEN_|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH_KEY)/i;

export const REDACTED = '[redacted]';

/**
 * Builds a redactor for text Ralph writes to its logs and diagnostics: the values of secret-looking
 * environment variables (names with API_KEY, TOKEN, SECRET, PASSWORD…), the `extra` values (secret
 * whatever their name: a config's, from secretValues) and common key shapes.
 */
export function createRedactor(
  env: NodeJS.ProcessEnv,
  extra: readonly string[] = [],
): (text: string) => string {
  const named = Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && typeof value === 'string')
    .map(([, value]) => value as string);
  const values = [...new Set([...named, ...extra])]
    .filter((value) => value.length >= MIN_SECRET_CHARS)
    .sort((a, b) => b.length - a.length);
  return (text: string) => {
    // Most strings of an event or record (types, hats, topics, stamps) are too short to hold one.
    if (text.length < MIN_SECRET_CHARS) return text;
    let out = text;
    for (const v of values) if (out.includes(v)) out = out.split(v).join(REDACTED);
    for (const [shape, literal] of KEY_SHAPES) if (out.includes(literal)) out = out.replace(shape, REDACTED);
    return out;
  };
}

/** How deep redactDeep walks; what lies deeper is replaced by TOO_DEEP (an agent's value can nest 200,000 deep). */
const MAX_DEPTH = 100;

/** What a value nested deeper than MAX_DEPTH becomes: nothing unredacted passes, and no walk after overflows. */
export const TOO_DEEP = '[nested too deep]';

/**
 * Applies `redact` to every string inside a JSON-like value (a copy; the input is not changed).
 * Every event and record goes through it: keys are walked without building entry pairs.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string, depth = 0): T {
  if (typeof value === 'string') return redact(value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return TOO_DEEP as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact, depth + 1)) as T;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(source)) out[k] = redactDeep(source[k], redact, depth + 1);
  return out as T;
}

/** The mark a line rewritten in place gets when `[redacted]` does not fit (a secret of 8 or 9 bytes). */
const SHORT_MARK = '***';

/**
 * `line` of a JSON-lines file with every secret gone, no longer in UTF-8 bytes than it was (so the
 * file can be cleaned in place), or undefined when it holds none. A JSON line stays JSON: a secret
 * hidden from the raw text by JSON escapes (`\u0041…`) is found in its parsed strings.
 */
export function redactLine(line: string, redact: (text: string) => string): string | undefined {
  const raw = redact(line);
  // Escapes can hide a secret only where the line has a backslash: most lines cost one redact call.
  if (raw === line && !line.includes('\\')) return undefined;
  const json = parseJson(line);
  let out = raw;
  if (json !== undefined) {
    if (raw === line && !secretIn(json.value, redact)) return undefined;
    // The raw text redacted keeps the line's own form, when it is still JSON with nothing left inside.
    const rawJson = raw === line ? undefined : parseJson(raw);
    if (rawJson === undefined || secretIn(rawJson.value, redact)) {
      const whole = JSON.stringify(redactDeep(json.value, redact));
      const again = redact(whole);
      out = parseJson(again) === undefined ? whole : again;
    }
  } else if (raw === line) return undefined;
  const room = Buffer.byteLength(line);
  if (Buffer.byteLength(out) <= room) return out;
  // Every redaction is at least 8 bytes, so `***` makes the line shorter; a JSON line written
  // back whole can still grow (`1e9` → `1000000000`): then the line goes blank, with its secret.
  const short = out.split(REDACTED).join(SHORT_MARK);
  return Buffer.byteLength(short) <= room ? short : '';
}

/** True when a string inside `value` holds a secret. */
function secretIn(value: unknown, redact: (text: string) => string): boolean {
  let hit = false;
  redactDeep(value, (text) => {
    if (!hit && redact(text) !== text) hit = true;
    return text;
  });
  return hit;
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}
