import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, RalphError, resolveBackend, runLoop } from '../../src/index.ts';
import { fakeConfig, makeWorkspace, RALPH, ROOT, startProcess } from '../helpers/workspace.ts';

const pretendWindows = join(ROOT, 'test', 'fixtures', 'platform', 'windows.mjs');

describe('Windows: a clear refusal at start, never a crash', () => {
  it('ralph (any command) says to use WSL in one line and exits 1, touching nothing', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ run: "touch started" }]\n',
    });
    for (const args of [['run'], ['status']]) {
      const r = await startProcess(process.execPath, ['--import', pretendWindows, RALPH, ...args], dir).done;
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^ralph: Windows is not supported yet: use WSL[^\n]*\n$/);
      expect(r.stdout).toBe('');
    }
    expect(existsSync(join(dir, 'started'))).toBe(false);
    expect(existsSync(join(dir, '.ralph'))).toBe(false);
  });

  it('runLoop rejects with unsupported_platform before it writes anything', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns: []\n',
    });
    const { config } = loadConfig({ file: join(dir, 'ralph.yml'), cwd: dir });
    const real = Object.getOwnPropertyDescriptor(process, 'platform') as PropertyDescriptor;
    Object.defineProperty(process, 'platform', { value: 'win32', configurable: true });
    try {
      const run = runLoop({ workspace: dir, config, prompt: 'x', backend: resolveBackend('fake', config) });
      await expect(run).rejects.toThrow(RalphError);
      await expect(run).rejects.toMatchObject({ code: 'unsupported_platform', exitCode: 1 });
    } finally {
      Object.defineProperty(process, 'platform', real);
    }
    expect(existsSync(join(dir, '.ralph'))).toBe(false);
  });
});
