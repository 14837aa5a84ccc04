import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/workspace.ts';

// DESIGN.md §3, one door per outside service: HTTP only through the core in src/http/; every
// durable write through the fault layer in src/state/io/ (CONTRIBUTING, "Breaking Ralph on purpose").

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

/** The file-system modules, with or without `node:`, the promises API too. */
const FS_MODULE = /^(?:node:)?fs(?:\/promises)?$/;
/** fs calls that change what is on disk (a file's content, its name, its existence). */
const FS_WRITES = new Set(
  'writeFileSync writeFile appendFileSync appendFile renameSync rename rmSync rm rmdirSync rmdir unlinkSync unlink copyFileSync copyFile cpSync cp symlinkSync symlink linkSync link truncateSync truncate ftruncateSync ftruncate writeSync write writevSync writev createWriteStream'.split(
    ' ',
  ),
);
/** The layer every durable write goes through (write-faults.ts counts and fails them). */
const WRITE_LAYER = 'state/io/';
/** Files that write past the layer on purpose, each with why (not a durable write of a run). */
const WRITE_ALLOWED: Record<string, string> = {
  'fake-agent/main.ts': 'the scripted agent, a program of its own: its writes are the agent’s',
  'state/cache/config-cache.ts':
    'a cache whose loss costs nothing (written by replaceFileSync, uncounted): stale entries removed',
  'state/cache/code-cache.ts':
    'V8’s code cache of the CLI bundle, whose loss costs a compile (replaceFileSync, uncounted): a rebuild’s old entries removed',
  'state/run-dirs.ts': 'prunes old runs’ folders; a crash half-way leaves some for the next prune',
  'state/workspace-lock.ts': 'lock files, the lock core’s: a dead holder’s is taken over, never trusted',
  'state/parallel-claims.ts':
    'a claim is a task’s lock: released by removing it, a dead worker’s released by the next',
  'human/telegram/bot-state.ts': 'a loop’s registration with the shared bot: a dead loop’s is ignored',
  'fleet/fleet-git.ts': 'the worker’s clone, removed and cloned again from the remote',
  'engine/readiness/agent-probe.ts': 'the probe’s scratch directory',
  'backends/agents/gemini.ts':
    'a deny policy for Gemini CLI, named by its content and written again at each start',
  'dashboard/token-file.ts':
    'created exclusively (wx, 0600) and flushed: a rename would replace a token another start made first',
};

/** The fs names a source imports: `local → fs name` for named imports, and namespace/default names. */
function fsImports(text: string): { named: Map<string, string>; spaces: string[] } {
  const named = new Map<string, string>();
  const spaces: string[] = [];
  for (const m of text.matchAll(/\bimport\s+([^'";]+?)\s+from\s*(['"])([^'"]+)\2/g)) {
    if (!FS_MODULE.test(m[3] as string)) continue;
    const clause = m[1] as string;
    for (const part of /\{([^}]*)\}/.exec(clause)?.[1]?.split(',') ?? []) {
      const [imported, local] = part
        .replace(/^\s*type\s+/, '')
        .trim()
        .split(/\s+as\s+/);
      if (imported === 'promises') spaces.push(local ?? imported);
      else if (imported) named.set(local ?? imported, imported);
    }
    const whole = /^([\w$]+)|\*\s*as\s+([\w$]+)/.exec(clause.trim());
    if (whole) spaces.push((whole[1] ?? whole[2]) as string);
  }
  for (const m of text.matchAll(
    /\b(?:const|let|var)\s+([\w$]+)\s*=\s*(?:await\s+import|require)\(\s*(['"])([^'"]+)\2/g,
  ))
    if (FS_MODULE.test(m[3] as string)) spaces.push(m[1] as string);
  return { named, spaces };
}

/** An `open`/`openSync` call whose flags may write: a literal with w, a or +, or flags not written out. */
const writingOpen = (args: string) => {
  const flags = /^[^,]+,\s*([^,)]+)/.exec(args)?.[1]?.trim();
  return flags !== undefined && !/^(['"`])r\1$/.test(flags);
};

/** The fs write calls of one source (`name: call`), outside the layer and the allow-list. */
function directWrites(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [name, text] of files) {
    if (name.startsWith(WRITE_LAYER) || name in WRITE_ALLOWED) continue;
    const body = code(text);
    const { named, spaces } = fsImports(body);
    const calls = new Set<string>();
    for (const [local, imported] of named) {
      const re = new RegExp(`(?<![\\w$.])${local.replace('$', '\\$')}\\s*\\(([^\\n]*)`, 'g');
      for (const m of body.matchAll(re))
        if (FS_WRITES.has(imported) || (/^open(Sync)?$/.test(imported) && writingOpen(m[1] as string)))
          calls.add(imported);
    }
    for (const space of spaces) {
      const re = new RegExp(
        `(?<![\\w$.])${space.replace('$', '\\$')}(?:\\.promises)?\\.([\\w$]+)\\s*\\(([^\\n]*)`,
        'g',
      );
      for (const m of body.matchAll(re)) {
        const call = m[1] as string;
        if (FS_WRITES.has(call) || (/^open(Sync)?$/.test(call) && writingOpen(m[2] as string)))
          calls.add(call);
      }
    }
    found.push(...[...calls].map((call) => `${name}: ${call}`));
  }
  return found;
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

  it('writes files only through the fault layer (src/state/io/), or on the allow-list with a reason', () => {
    expect(
      directWrites(sources()),
      'write through src/state/io (writeFileAtomicSync, appendLine, appendText, removeFile, moveFile …)',
    ).toEqual([]);
  });

  it('would catch fs writes planted outside the layer', () => {
    const planted = new Map([
      ['engine/a.ts', "import { appendFileSync } from 'node:fs';\nappendFileSync(path, text);"],
      ['observe/b.ts', "import { openSync as open } from 'fs';\nconst fd = open(file, 'a');"],
      ['gates/c.ts', "import * as fs from 'node:fs';\nfs.renameSync(a, b);"],
      ['human/d.ts', "import { promises as p } from 'node:fs';\nawait p.writeFile(path, text);"],
      ['cli/e.ts', "import fsp from 'fs/promises';\nawait fsp.rm(dir, { recursive: true });"],
      ['parallel/f.ts', "import { openSync } from 'node:fs';\nconst fd = openSync(file, flags);"],
      // Not offenders: the layer, an allowed file, a read, reading opens, a method of that name.
      ['state/io/g.ts', "import { writeFileSync } from 'node:fs';\nwriteFileSync(p, t);"],
      ['state/cache/config-cache.ts', "import { rmSync } from 'node:fs';\nrmSync(p);"],
      [
        'engine/h.ts',
        "import { openSync, readFileSync } from 'node:fs';\nreadFileSync(p);\nopenSync(p, 'r');\nopenSync(p);\nstream.write(x);",
      ],
    ]);
    expect(directWrites(planted)).toEqual([
      'engine/a.ts: appendFileSync',
      'observe/b.ts: openSync',
      'gates/c.ts: renameSync',
      'human/d.ts: writeFile',
      'cli/e.ts: rm',
      'parallel/f.ts: openSync',
    ]);
  });
});
