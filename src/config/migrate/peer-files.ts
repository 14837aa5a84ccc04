// The settings files of the other loops, read as far as `ralph init --from` needs them: never run,
// never evaluated; a value they compute at run time is taken at its written default.

/** A scalar setting as written: text, a number or a boolean. */
export type PeerValue = string | number | boolean;

/** One `${NAME:-default}` (or `${NAME-default}`) expansion: its default, else the text as written. */
function shellDefault(value: string): string {
  const m = /^\$\{[A-Za-z_][A-Za-z0-9_]*:?-(.*)\}$/.exec(value);
  return m ? (m[1] as string) : value;
}

/** A shell word: its quotes removed (no expansion but a whole `${NAME:-default}`). */
function unquote(raw: string): string {
  const s = raw.trim();
  if (s.length >= 2 && (s[0] === '"' || s[0] === "'") && s.at(-1) === s[0]) {
    const inner = s.slice(1, -1);
    return s[0] === '"' ? shellDefault(inner) : inner;
  }
  return shellDefault(s.replace(/\s+#.*$/, ''));
}

/**
 * frankbria/ralph-claude-code's `.ralphrc`: `KEY=value` lines of a shell file (comments, `export`
 * and quotes allowed). Lines that are not plain assignments are skipped, never run.
 */
export function parseRalphrc(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (m) out.set(m[1] as string, unquote(m[2] as string));
  }
  return out;
}

/** One TOML value of the forms a ralph-tui config uses: a string, a number, a boolean. */
function tomlScalar(raw: string): PeerValue | undefined {
  const s = raw.replace(/\s+#.*$/, '').trim();
  const str = /^"((?:[^"\\]|\\.)*)"$|^'([^']*)'$/.exec(s);
  if (str) return str[1] !== undefined ? JSON.parse(`"${str[1]}"`) : (str[2] as string);
  if (s === 'true' || s === 'false') return s === 'true';
  if (/^[+-]?\d+(\.\d+)?$/.test(s)) return Number(s);
  return undefined;
}

/**
 * ralph-tui's `.ralph-tui/config.toml`, its scalar keys by dotted name (`tracker`,
 * `trackerOptions.path`); arrays, inline tables and `[[…]]` lists are not read.
 */
export function parseTomlScalars(text: string): Map<string, PeerValue> {
  const out = new Map<string, PeerValue>();
  let table = '';
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[([A-Za-z0-9_.-]+)\]\s*(#.*)?$/.exec(line);
    if (header) {
      table = `${header[1]}.`;
      continue;
    }
    if (/^\s*\[\[/.test(line)) {
      table = '\u0000'; // a list of tables: its keys are not top-level settings
      continue;
    }
    const kv = /^\s*([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (!kv || table === '\u0000') continue;
    const value = tomlScalar(kv[2] as string);
    if (value !== undefined) out.set(`${table}${kv[1]}`, value);
  }
  return out;
}
