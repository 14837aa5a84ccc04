/**
 * Shapes of well-known credentials (Anthropic, OpenAI, Google, GitHub, Slack, AWS, bearer headers),
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
];

const SECRET_NAME = /(API_KEY|APIKEY|_TOKEN|TOKEN_|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH_KEY)/i;

export const REDACTED = '[redacted]';

/**
 * Builds a redactor for text Ralph writes to its logs and diagnostics: the values of secret-looking
 * environment variables (names with API_KEY, TOKEN, SECRET, PASSWORD…) and common key shapes.
 */
export function createRedactor(env: NodeJS.ProcessEnv): (text: string) => string {
  const values = Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && typeof value === 'string' && value.length >= 8)
    .map(([, value]) => value as string)
    .sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text;
    for (const v of values) if (out.includes(v)) out = out.split(v).join(REDACTED);
    for (const [shape, literal] of KEY_SHAPES) if (out.includes(literal)) out = out.replace(shape, REDACTED);
    return out;
  };
}

/** Applies `redact` to every string inside a JSON-like value (a copy; the input is not changed). */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, redact);
    return out as T;
  }
  return value;
}
