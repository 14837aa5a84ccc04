import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runWithGitLog } from '../helpers/git-workspace.ts';
import { makeWorkspace, RALPH, ROOT, startProcess } from '../helpers/workspace.ts';

// Issue 22, point 8: the time from `ralph run` to the first agent is mostly module loading (Node
// 20 has no compile cache), so `bin/ralph` runs a bundle. Counted, not timed: a timing would fail
// on a loaded machine, a count does not.
/**
 * Writes a module hook that lists every file Node loads in `dir`/loaded.txt: ES modules in Node's
 * hooks thread, CommonJS files (the bundle bin/ralph requires) as each is loaded; returns the
 * arguments that install both.
 */
function moduleList(dir: string): string[] {
  const list = join(dir, 'loaded.txt');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(list)}, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
  writeFileSync(
    join(dir, 'require-hook.cjs'),
    `const Module = require('node:module');\nconst { appendFileSync } = require('node:fs');\nconst { pathToFileURL } = require('node:url');\nconst load = Module.prototype.load;\nModule.prototype.load = function (filename) {\n  appendFileSync(${JSON.stringify(list)}, pathToFileURL(filename).href + '\\n');\n  return load.call(this, filename);\n};\n`,
  );
  return ['--require', join(dir, 'require-hook.cjs'), '--import', join(dir, 'register.mjs')];
}

/** The package's files (bin/ralph and the bundle's) one `ralph <args>` in `dir` loaded, as URLs. */
async function filesLoaded(
  dir: string,
  args: string[],
  expected: { code: number; stderr?: string },
  env: NodeJS.ProcessEnv = {},
): Promise<string[]> {
  rmSync(join(dir, 'loaded.txt'), { force: true });
  const r = await startProcess(process.execPath, [...moduleList(dir), RALPH, ...args], dir, env).done;
  expect(r.stderr).toBe(expected.stderr ?? '');
  expect(r.code).toBe(expected.code);
  // Once each: with --import, Node loads a CommonJS main (bin/ralph) through its ES loader too.
  const files = [...new Set(readFileSync(join(dir, 'loaded.txt'), 'utf8').trim().split('\n'))];
  return files.filter((url) => url.startsWith(pathToFileURL(ROOT).href));
}

/** How many bytes the files at these URLs hold. */
const bytesOf = (urls: string[]): number => urls.reduce((sum, url) => sum + statSync(new URL(url)).size, 0);

const RUN_ONCE = ['run', '-q', '--fresh', '--max-iterations', '1'];

/**
 * The modules of the YAML parser, of config loading and of zod among the bundle files one run
 * loaded.
 */
async function configModulesLoaded(dir: string): Promise<string[]> {
  const files = await filesLoaded(dir, RUN_ONCE, { code: 2 });
  // The bundle keeps a `// <source path>` line before each module it holds.
  return files
    .filter((url) => /\.c?js$/.test(url))
    .flatMap((url) => [
      ...readFileSync(new URL(url), 'utf8').matchAll(
        /^\/\/ (node_modules\/(?:yaml|zod)\/\S+|dist\/config\/(?:load-config|schema)\.js)$/gm,
      ),
    ])
    .map((m) => m[1]!);
}

describe('ralph run start-up', () => {
  it('loads neither the YAML parser, the config schema nor zod when its config comes from the cache', async () => {
    const dir = makeWorkspace({
      'ralph.yml':
        'event_loop:\n  prompt: "no-op"\n  cooldown_delay_seconds: 0\ncli:\n  backend: custom\n  command: /bin/true\n  prompt_mode: stdin\n',
    });
    // The first run is a miss: validated, then cached (keyed on ralph.yml's bytes, so at once).
    const miss = await configModulesLoaded(dir);
    expect(miss.some((m) => m.startsWith('node_modules/zod/'))).toBe(true);
    expect(await configModulesLoaded(dir)).toEqual([]); // the hit: state.json is read without zod
    // The hit, up to its first agent: bin/ralph, the entry and a few chunks (the run's own modules
    // in one, not a file per module it shares with another command: 33 files before that).
    const hit = await filesLoaded(dir, RUN_ONCE, { code: 2 });
    expect(hit.length).toBeLessThanOrEqual(12);
    // 740 kB before the agent-proof checks of issue 32 (git config and index guards, the lock's twin,
    // redaction of agent files) joined the run's chunk: ~770 kB with them; ~855 kB as CommonJS (each
    // use of another chunk's export is spelled `require_shared.name`), compiled from V8's code cache;
    // ~920 kB once the sandbox (policy, bwrap arguments, the input gathered at start), lifecycle hooks
    // and prd.json tasks joined it (issues 34, 35); ~964 kB with beads tasks, the pi backend's parser,
    // the wave plan, `-H` hat sources, progress notes, the GitHub quota park and the debug trace's
    // no-op checks (issues 35, 36; the wave runner and the skill reader load only when configured).
    // The budget still catches zod, yaml or commander (100 kB and more each) coming back on this
    // path, which the line above also names.
    expect(bytesOf(hit)).toBeLessThan(975_000);
    appendFileSync(join(dir, 'ralph.yml'), '# edited\n');
    expect(await configModulesLoaded(dir)).not.toEqual([]); // changed: read and validated again
  });

  it('loads a few bundled files up to its first agent, not ~250 modules, zod, yaml or commander', async () => {
    const dir = makeWorkspace({
      'ralph.yml':
        'event_loop:\n  prompt: "no-op"\n  cooldown_delay_seconds: 0\ncli:\n  backend: custom\n  command: /bin/true\n  prompt_mode: stdin\n',
    });
    const list = join(dir, 'loaded.txt');
    const r = await startProcess(
      process.execPath,
      [...moduleList(dir), RALPH, 'run', '-q', '--max-iterations', '1'],
      dir,
    ).done;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2); // max_iterations: the agent ran
    const loaded = [...new Set(readFileSync(list, 'utf8').trim().split('\n'))];
    const ours = loaded.filter((url) => url.startsWith(pathToFileURL(ROOT).href));
    expect(ours.filter((url) => url.includes('/node_modules/'))).toEqual([]);
    expect(ours.filter((url) => url.includes('/dist/')).length).toBeGreaterThan(0);
    // 54 files when this was written, against ~350 (our ~250 modules, zod's 95, yaml, commander);
    // 17 on this first run (a config-cache miss) since the run's own modules are one chunk (was 40).
    expect(ours.length).toBeLessThanOrEqual(20);
  });

  it("ralph --version and ralph emit load neither the run's chunks nor the built-in modules they import", async () => {
    const dir = makeWorkspace({});
    const version = await filesLoaded(dir, ['--version'], { code: 0 });
    // The entry, the small chunk of errors and paths, the command definitions and commander
    // (440 kB in 14 files when the entry imported the run's 313 kB shared chunk for its platform check).
    expect(version.length).toBeLessThanOrEqual(7);
    expect(bytesOf(version)).toBeLessThan(200_000);
    const events = join(dir, 'events.jsonl');
    const emit = await filesLoaded(
      dir,
      ['emit', 'build.done', 'ok'],
      { code: 0 },
      { RALPH_EVENTS_FILE: events },
    );
    expect(readFileSync(events, 'utf8')).toContain('build.done');
    // `ralph emit` runs inside agent tool calls: the entry and the small chunk, not commander (~330 kB before).
    expect(emit.length).toBeLessThanOrEqual(5);
    expect(bytesOf(emit)).toBeLessThan(60_000);
  });

  it('ralph tell, run inside agent tool calls, loads no zod (the config schema stays unloaded)', async () => {
    const dir = makeWorkspace({ 'ralph.yml': 'event_loop:\n  prompt: go\n' }); // tell needs a Ralph project
    const tell = await filesLoaded(dir, ['tell', 'keep the tests green'], { code: 0 });
    expect(readFileSync(join(dir, '.ralph', 'control', 'inbox.jsonl'), 'utf8')).toContain(
      'keep the tests green',
    );
    const zod = tell
      .filter((url) => /\.c?js$/.test(url))
      .flatMap((url) => [...readFileSync(new URL(url), 'utf8').matchAll(/^\/\/ node_modules\/zod\/\S+$/gm)]);
    expect(zod).toEqual([]);
    expect(tell.length).toBeLessThanOrEqual(11);
  });

  it("loads none of Node's ES loader or source-map modules before its first agent", async () => {
    const dir = makeWorkspace({
      'ralph.yml':
        'event_loop:\n  prompt: "no-op"\n  cooldown_delay_seconds: 0\ncli:\n  backend: custom\n  command: /bin/true\n  prompt_mode: stdin\n',
    });
    // Node's built-in modules loaded when the first child process starts (the agent: no git here).
    const list = join(dir, 'builtins.txt');
    writeFileSync(
      join(dir, 'spawn-hook.cjs'),
      `const { ChildProcess } = require('node:child_process');\nconst { writeFileSync } = require('node:fs');\nconst spawn = ChildProcess.prototype.spawn;\nChildProcess.prototype.spawn = function (...args) {\n  ChildProcess.prototype.spawn = spawn;\n  writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n'));\n  return spawn.apply(this, args);\n};\n`,
    );
    const run = () =>
      startProcess(process.execPath, ['--require', join(dir, 'spawn-hook.cjs'), RALPH, ...RUN_ONCE], dir)
        .done;
    await run(); // fills the config and code caches
    rmSync(list, { force: true });
    const r = await run();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const builtins = readFileSync(list, 'utf8').split('\n');
    expect(builtins).toContain('NativeModule vm'); // the code cache's compiler: the list is the run's
    // The code cache takes CommonJS's loader class from its own `module`, not from `node:module`.
    expect(
      builtins.filter((m) =>
        /^NativeModule (module|internal\/modules\/esm\/loader|internal\/source_map\/source_map)$/.test(m),
      ),
    ).toEqual([]);
  });

  it("validates a fresh workspace's config without zod's JIT (no new Function)", async () => {
    const dir = makeWorkspace({
      'ralph.yml':
        'event_loop:\n  prompt: "no-op"\n  cooldown_delay_seconds: 0\ncli:\n  backend: custom\n  command: /bin/true\n  prompt_mode: stdin\n',
    });
    // Counts the code made from strings (zod's JIT makes a function per object schema at its first parse).
    const count = join(dir, 'functions.txt');
    writeFileSync(
      join(dir, 'function-hook.cjs'),
      `const { appendFileSync } = require('node:fs');\nglobalThis.Function = new Proxy(Function, {\n  construct(target, args) {\n    appendFileSync(${JSON.stringify(count)}, 'new Function\\n');\n    return Reflect.construct(target, args);\n  },\n});\n`,
    );
    const r = await startProcess(
      process.execPath,
      ['--require', join(dir, 'function-hook.cjs'), RALPH, ...RUN_ONCE],
      dir,
      { XDG_CACHE_HOME: join(dir, 'cache') }, // a config-cache miss: the schema loads and validates
    ).done;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    expect(existsSync(count) ? readFileSync(count, 'utf8') : '').toBe('');
  });

  it('bundles the CLI as ASCII, so that Node reads each file into a one-byte string', () => {
    const bundle = readdirSync(join(ROOT, 'dist')).filter((name) => /^ralph-cli.*\.cjs$/.test(name));
    expect(bundle.length).toBeGreaterThan(5);
    // A single `—` in a message made the whole file a two-byte string: slower to read, hash and scan.
    const nonAscii = bundle.filter((name) =>
      readFileSync(join(ROOT, 'dist', name)).some((byte) => byte > 0x7f),
    );
    expect(nonAscii).toEqual([]);
  });

  it('asks git once whether the workspace is a repository and where its files are', async () => {
    const { log, result: r } = await runWithGitLog(['run', '-q', '--max-iterations', '1']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const beforeAgent = log.slice(0, log.indexOf('agent'));
    expect(beforeAgent.filter((line) => line.startsWith('git -C')).length).toBeGreaterThan(0);
    expect(beforeAgent.filter((line) => / rev-parse /.test(line))).toHaveLength(1);
  });
});
