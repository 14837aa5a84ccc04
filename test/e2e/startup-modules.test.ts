import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runWithGitLog } from '../helpers/git-workspace.ts';
import { makeWorkspace, RALPH, ROOT, startProcess } from '../helpers/workspace.ts';

// Issue 22, point 8: the time from `ralph run` to the first agent is mostly module loading (Node
// 20 has no compile cache), so `bin/ralph` runs a bundle. Counted, not timed: a timing would fail
// on a loaded machine, a count does not.
/**
 * Writes a module hook that lists every file Node loads in `dir`/loaded.txt (in Node's hooks
 * thread); returns the file for `--import`.
 */
function moduleList(dir: string): string {
  const list = join(dir, 'loaded.txt');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(list)}, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
  return join(dir, 'register.mjs');
}

/**
 * The modules of the YAML parser, of config loading and of zod among the bundle files one run
 * loaded.
 */
async function configModulesLoaded(dir: string): Promise<string[]> {
  rmSync(join(dir, 'loaded.txt'), { force: true });
  const r = await startProcess(
    process.execPath,
    ['--import', moduleList(dir), RALPH, 'run', '-q', '--fresh', '--max-iterations', '1'],
    dir,
  ).done;
  expect(r.stderr).toBe('');
  expect(r.code).toBe(2);
  const files = readFileSync(join(dir, 'loaded.txt'), 'utf8').trim().split('\n');
  // The bundle keeps a `// <source path>` line before each module it holds.
  return files
    .filter((url) => url.startsWith(pathToFileURL(ROOT).href) && url.endsWith('.js'))
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
    const written = Date.now();
    // The first run writes .ralph/.gitignore; ralph.yml is trusted once 2 s old (the racy window).
    expect(await configModulesLoaded(dir)).not.toEqual([]);
    await new Promise((done) => setTimeout(done, Math.max(0, written + 2100 - Date.now())));
    const miss = await configModulesLoaded(dir); // a miss: validated, then cached
    expect(miss.some((m) => m.startsWith('node_modules/zod/'))).toBe(true);
    expect(await configModulesLoaded(dir)).toEqual([]); // the hit: state.json is read without zod
    appendFileSync(join(dir, 'ralph.yml'), '# edited\n');
    expect(await configModulesLoaded(dir)).not.toEqual([]); // changed: read and validated again
  });

  it('loads a few bundled files up to its first agent, not ~250 modules, zod, yaml or commander', async () => {
    const dir = makeWorkspace({
      'ralph.yml':
        'event_loop:\n  prompt: "no-op"\n  cooldown_delay_seconds: 0\ncli:\n  backend: custom\n  command: /bin/true\n  prompt_mode: stdin\n',
    });
    const list = join(dir, 'loaded.txt');
    const register = moduleList(dir);
    const r = await startProcess(
      process.execPath,
      ['--import', register, RALPH, 'run', '-q', '--max-iterations', '1'],
      dir,
    ).done;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2); // max_iterations: the agent ran
    const loaded = readFileSync(list, 'utf8').trim().split('\n');
    const ours = loaded.filter((url) => url.startsWith(pathToFileURL(ROOT).href));
    expect(ours.filter((url) => url.includes('/node_modules/'))).toEqual([]);
    expect(ours.filter((url) => url.includes('/dist/')).length).toBeGreaterThan(0);
    // 54 files when this was written, against ~350 (our ~250 modules, zod's 95, yaml, commander).
    expect(ours.length).toBeLessThan(80);
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
