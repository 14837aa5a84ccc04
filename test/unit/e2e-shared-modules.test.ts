import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, ROOT } from '../helpers/workspace.ts';
import { sharedModuleLeaks } from '../setup/shared-modules.ts';

/**
 * test/e2e runs without isolation (vitest.config.ts: one module graph per worker): a file there that
 * replaced a module, faked the clock or changed the process's environment or working directory
 * would change them for every e2e file after it in that worker. (test/integration shares one too,
 * and vitest.config.ts runs its files that do so isolated.)
 */
describe('the e2e files share their workers’ modules', () => {
  it('no e2e file replaces a module, fakes the clock or changes the environment or working directory', () => {
    expect(
      sharedModuleLeaks(ROOT, 'test/e2e'),
      'the e2e project runs with isolate: false; start a process with its own env instead, or move the file to test/integration',
    ).toEqual([]);
  });

  it('finds each kind planted, and nothing in a file that only reads them', () => {
    const root = makeWorkspace();
    mkdirSync(join(root, 'test', 'e2e'), { recursive: true });
    const plant = (name: string, text: string) => writeFileSync(join(root, 'test', 'e2e', name), text);
    // Joined here: the call written out in this file would make vitest.config.ts run it isolated.
    plant('a.test.ts', `${['vi', 'mock'].join('.')}('../../src/index.ts');\n`);
    plant('b.test.ts', 'vi.useFakeTimers();\n');
    plant('c.test.ts', "vi.stubEnv('HOME', '/tmp');\n");
    plant('d.test.ts', "process.env.RALPH_AGENT = 'codex';\n");
    plant('e.test.ts', "process.env['HOME'] = '/tmp';\n");
    plant('f.test.ts', 'process.chdir(dir);\n');
    plant('g.test.ts', "const env = { ...process.env, HOME: dir };\nif (process.env.CI === '1') run(env);\n");
    expect(sharedModuleLeaks(root, 'test/e2e').sort()).toEqual([
      'test/e2e/a.test.ts: replaces a module (vi.mock)',
      'test/e2e/b.test.ts: fakes the clock',
      'test/e2e/c.test.ts: stubs the environment or a global',
      'test/e2e/d.test.ts: changes process.env',
      'test/e2e/e.test.ts: changes process.env',
      'test/e2e/f.test.ts: changes the working directory',
    ]);
  });
});
