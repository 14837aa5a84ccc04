import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, RALPH, ROOT, startProcess } from '../helpers/workspace.ts';

// Issue 22, point 8: the time from `ralph run` to the first agent is mostly module loading (Node
// 20 has no compile cache), so `bin/ralph` runs a bundle. Counted, not timed: a timing would fail
// on a loaded machine, a count does not.
describe('ralph run start-up', () => {
  it('loads a few bundled files up to its first agent, not ~250 modules, zod, yaml or commander', async () => {
    const dir = makeWorkspace({
      'ralph.yml':
        'event_loop:\n  prompt: "no-op"\n  cooldown_delay_seconds: 0\ncli:\n  backend: custom\n  command: /bin/true\n  prompt_mode: stdin\n',
    });
    // A module hook that writes every file Node loads to a list (in Node's hooks thread).
    const list = join(dir, 'loaded.txt');
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(list)}, url + '\\n');\n  return next(url, context);\n}\n`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
    );
    const r = await startProcess(
      process.execPath,
      ['--import', join(dir, 'register.mjs'), RALPH, 'run', '-q', '--max-iterations', '1'],
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
});
