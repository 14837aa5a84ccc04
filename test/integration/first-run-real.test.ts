import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git } from '../helpers/git-workspace.ts';
import { makeWorkspace, ROOT, type RunResult, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';
import { anthropicMessages } from '../support/model-server/anthropic.ts';
import { type ModelServer, startModelServer } from '../support/model-server/server.ts';

// docs/guide/first-run-real-agent.md, run as written with the real Claude Code CLI (a pinned
// devDependency) against the scripted model server on 127.0.0.1: the page's ralph.yml and PROMPT.md
// are used as they stand, and every line of each `<!-- checked: NAME -->` block must be in what
// that command printed (ids, times, numbers and paths aside). Nothing leaves the machine.

const PAGE = 'docs/guide/first-run-real-agent.md';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The fenced blocks of the page marked `<!-- checked: NAME -->` or `<!-- used: NAME -->`, by name. */
function markedBlocks(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of markdown.matchAll(/<!-- (?:checked|used): (\S+) -->\n```\w*\n([\s\S]*?)\n```/g))
    found.set(m[1] as string, `${m[2]}\n`);
  return found;
}

/** A line as the page and a run can both say it: the workspace, the CLI's path, ids, numbers and durations made alike. */
function normalized(text: string, dir: string): string[] {
  return text
    .replaceAll(dir, '/home/you/slugs')
    .replaceAll(join(ROOT, 'node_modules', '.bin'), '/usr/local/bin')
    .replace(/\b\d{8}-\d{6}-[0-9a-f]{6}\b/g, 'RUN')
    .replace(/\bcommitted [0-9a-f]{7,}/g, 'committed SHA')
    .replace(/\d[\d,.]*/g, '#')
    .replace(/#(?:ms|s|m|h)(?:#(?:ms|s|m|h))*/g, 'TIME')
    .replace(/just now|TIME ago/g, 'WHEN')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '');
}

/** The lines of a checked block that `output` does not hold. */
function missing(block: string, output: RunResult, dir: string): string[] {
  const said = new Set(normalized(`${output.stdout}\n${output.stderr}`, dir));
  return normalized(block, dir).filter((line) => !said.has(line));
}

/** Whether a process whose command line holds `text` runs (Linux: /proc; the sandbox's PID namespace is inside it). */
function running(text: string): boolean {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .some((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    });
}

/** The agent's shell command of the interrupted try: it waits a minute, unless Ctrl-C comes first. */
const HANG = 'setTimeout(() => {}, 61370)';

const SLUG =
  "export function slugify(text) {\n  return text\n    .toLowerCase()\n    .normalize('NFKD')\n    .replace(/[\\u0300-\\u036f]/g, '')\n    .replace(/[^a-z0-9]+/g, '-')\n    .replace(/^-|-$/g, '');\n}\n";
const SLUG_TEST =
  "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { slugify } from './slug.js';\n\ntest('slugify', () => {\n  assert.equal(slugify('Crème Brûlée, 2 ways!'), 'creme-brulee-2-ways');\n});\n";
const TRUNCATE =
  'export const truncate = (text, n) => (text.length <= n ? text : `${text.slice(0, n - 1)}…`);\n';
const TRUNCATE_TEST =
  "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { truncate } from './truncate.js';\n\ntest('truncate', () => {\n  assert.equal(truncate('abcdef', 4), 'abc…');\n});\n";

describe(PAGE, () => {
  it('every command works as written and prints what the page quotes', async () => {
    const page = markedBlocks(readFileSync(join(ROOT, PAGE), 'utf8'));
    server = await startModelServer([anthropicMessages], {
      rules: [
        // The second task: its first try hangs in a shell command until Ctrl-C, the resumed one works.
        {
          match: 'truncate',
          turn: 1,
          times: 1,
          reply: { tools: [{ kind: 'shell', command: `node -e '${HANG}'` }] },
        },
        {
          match: 'truncate',
          turn: 1,
          reply: {
            tools: [
              { kind: 'write_file', path: 'truncate.js', content: TRUNCATE },
              { kind: 'write_file', path: 'truncate.test.js', content: TRUNCATE_TEST },
            ],
            usage: { input: 4400, output: 300 },
          },
        },
        { match: 'truncate', turn: 2, reply: { text: 'truncate.js is tested.\nLOOP_COMPLETE' } },
        {
          match: 'slugify',
          turn: 1,
          reply: {
            tools: [
              { kind: 'write_file', path: 'slug.js', content: SLUG },
              { kind: 'write_file', path: 'slug.test.js', content: SLUG_TEST },
              { kind: 'shell', command: 'node --test' },
            ],
            usage: { input: 4200, output: 350 },
          },
        },
        {
          match: 'slugify',
          turn: 2,
          reply: {
            text: 'slug.js and its test are written; node --test passes.\nLOOP_COMPLETE',
            usage: { input: 5100, output: 60 },
          },
        },
      ],
    });
    const home = makeWorkspace({}, 'you');
    const dir = makeWorkspace({ 'package.json': '{\n  "name": "slugs",\n  "type": "module"\n}\n' }, 'slugs');
    // `claude` on PATH as after `npm install -g`; the proxies a dead port, so only loopback answers.
    const outerPath = (process.env.PATH ?? '').split(delimiter).filter((p) => !p.includes('node_modules'));
    const env: NodeJS.ProcessEnv = {
      HOME: home,
      PATH: [join(ROOT, 'node_modules', '.bin'), ...outerPath].join(delimiter),
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      ALL_PROXY: 'http://127.0.0.1:9',
      https_proxy: 'http://127.0.0.1:9',
      http_proxy: 'http://127.0.0.1:9',
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-test-key-0000',
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
    };
    // Variables that would send Claude Code elsewhere, log it in otherwise, or pick another backend.
    const outer = [
      'ANTHROPIC_AUTH_TOKEN',
      'CLAUDE_CODE_OAUTH_TOKEN',
      'CLAUDECODE',
      'CLAUDE_CONFIG_DIR',
      'RALPH_AGENT',
    ];
    const clean = Object.fromEntries(
      Object.entries({ ...process.env, ...env }).filter(([k]) => !outer.includes(k)),
    );
    const ralph = (...args: string[]) => runRalph(args, dir, clean);
    const check = (name: string, r: RunResult) => {
      const block = page.get(name);
      expect(block, `${PAGE} has no block marked ${name}`).toBeDefined();
      expect(missing(block as string, r, dir), `${name} printed:\n${r.stdout}${r.stderr}`).toEqual([]);
    };

    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.name', 'You');
    git(dir, 'config', 'user.email', 'you@example.invalid');
    const init = await ralph('init', '--preset', 'solo', '--backend', 'claude');
    expect(init.code).toBe(0);
    check('init', init);
    writeFileSync(join(dir, 'ralph.yml'), page.get('ralph.yml') as string);
    writeFileSync(join(dir, 'PROMPT.md'), page.get('PROMPT.md') as string);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'slugify task');

    const doctor = await ralph('doctor');
    expect(doctor.code, doctor.stdout).toBe(0);
    check('doctor', doctor);
    check('estimate', await ralph('estimate'));

    const run = await ralph('run', '--no-tui');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    check('run', run);
    expect(git(dir, 'log', '-1', '--format=%s%n%b')).toMatch(/^ralph: slug\.js .*\n[\s\S]*Tests: passing/);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    check('status', await ralph('status'));
    check('explain', await ralph('explain'));

    writeFileSync(
      join(dir, 'PROMPT.md'),
      '# Task\n\nAdd `truncate(text, n)` to truncate.js, with a test. End with LOOP_COMPLETE.\n',
    );
    git(dir, 'commit', '-qam', 'truncate task');
    const interrupted = startRalph(['run', '--no-tui'], dir, clean);
    await waitFor(
      () => running(HANG),
      60_000,
      () =>
        `the agent running its shell command; ps: ${readdirSync('/proc')
          .filter((p) => /^\d+$/.test(p))
          .map((p) => {
            try {
              return readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ');
            } catch {
              return '';
            }
          })
          .filter((c) => /sleep|claude|bwrap/.test(c))
          .join(' | ')} out: ${interrupted.stdout()}`,
    );
    interrupted.child.kill('SIGINT');
    const stopped = await interrupted.done;
    expect(stopped.code).toBe(130);
    check('interrupted', stopped);
    const refused = await ralph('run', '--no-tui');
    expect(refused.code).toBe(1);
    check('refused', refused);
    const resumed = await ralph('run', '--resume', '--no-tui');
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    check('resumed', resumed);
    expect(readFileSync(join(dir, 'truncate.js'), 'utf8')).toBe(TRUNCATE);
  }, 240_000);
});
