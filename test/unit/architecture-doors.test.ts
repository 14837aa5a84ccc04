import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/workspace.ts';

// DESIGN.md §3, one door per outside service: HTTP only through the core in src/http/.

const SRC = join(ROOT, 'src');

/** Every .ts file of src/ as [path relative to src/ with '/', text]. */
function sources(): Map<string, string> {
  return new Map(
    readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => [f.split('\\').join('/'), readFileSync(join(SRC, f), 'utf8')]),
  );
}

/** A source without its comment lines (`//`, and the ` * ` lines of a block comment). */
const code = (text: string) =>
  text
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\/?\*)/.test(l))
    .join('\n');

/** The HTTP core: the only folder that calls fetch. */
const HTTP_CORE = 'http/';
/** Files that hold `fetch(` that is not Ralph's own request, each with why. */
const FETCH_ALLOWED: Record<string, string> = {
  'dashboard/client-script.ts': "the dashboard page's script, sent to the browser as text and run there",
};
/**
 * Node's fetch used directly: called (`fetch(`), reached through the global object, or taken as a
 * value (`o.fetch ?? fetch`), which a later call would use; and the other HTTP clients.
 */
const FETCH_USE = [
  /(?<![\w$.])fetch\s*\(/,
  /\b(?:globalThis|global|window|self)\s*(?:\.\s*fetch\b|\[\s*['"`]fetch)/,
  /(?<![\w$.]|typeof\s+)fetch\s*(?:\?\?|\|\||&&|[;,)}\]]|$)/m,
  /\bfrom\s+['"](?:node:)?(?:https?|http2|undici)['"]/,
];

/** Files of src/ that reach HTTP services other than through the core. */
function fetchCallers(files: Map<string, string>): string[] {
  return [...files]
    .filter(([name]) => !name.startsWith(HTTP_CORE) && !(name in FETCH_ALLOWED))
    .filter(([, text]) => FETCH_USE.some((re) => re.test(code(text))))
    .map(([name]) => name);
}

describe('one door per outside service', () => {
  it('calls fetch only in the HTTP core (src/http/): GitHub, Telegram and webhooks go through it', () => {
    expect(fetchCallers(sources()), 'use httpRequest from src/http/http-request.ts').toEqual([]);
  });

  it('would catch fetch planted outside the core', () => {
    const planted = new Map([
      ['forge/a.ts', "const res = await fetch(url, { method: 'GET' });"],
      ['human/b.ts', 'const doFetch = o.fetchImpl ?? fetch;\nawait doFetch(url);'],
      ['engine/c.ts', 'await globalThis.fetch(url);'],
      ['observe/d.ts', "import { request } from 'node:https';"],
      ['cli/e.ts', "import { fetch as f } from 'undici';"],
      // Not offenders: the core, a method of that name, a type, an option, a comment, the page script.
      ['http/http-request.ts', 'await (o.fetch ?? fetch)(req.url);'],
      ['dashboard/f.ts', 'app.all("*", (c) => inner.fetch(c.req.raw));'],
      ['forge/g.ts', 'export interface O {\n  fetch?: typeof fetch;\n}\nconst x = { fetch: o.fetch };'],
      ['human/h.ts', '// fetch(url) is done by the core\nawait fetchRemoteBranch(ws);'],
      ['dashboard/client-script.ts', "const res = await fetch('/live');"],
    ]);
    expect(fetchCallers(planted)).toEqual([
      'forge/a.ts',
      'human/b.ts',
      'engine/c.ts',
      'observe/d.ts',
      'cli/e.ts',
    ]);
  });
});
