import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../../src/config/schema.ts';
import {
  gateCommandWords,
  nodePrefix,
  pathEntries,
  protectedDirs,
  runtimeUnderHome,
} from '../../../../src/engine/readiness/sandbox-input-paths.ts';
import {
  nativeRefusal,
  probeRefusal,
  refuseUnusableSandbox,
  runBackends,
} from '../../../../src/engine/readiness/sandbox-readiness.ts';
import { isWithinOrEqual } from '../../../../src/sandbox/sandbox-paths.ts';
import type { SandboxProbe } from '../../../../src/sandbox/sandbox-types.ts';

const missing: SandboxProbe = {
  ok: false,
  reason: 'missing',
  detail: 'bwrap is not on PATH',
  fix: 'install bubblewrap: sudo apt-get install bubblewrap',
};
const works: SandboxProbe = { ok: true, tool: 'bwrap', path: '/usr/bin/bwrap' };

describe('the paths a sandbox policy is gathered from', () => {
  it('a protect pattern naming a whole tree becomes its directory; globs, negations and `..` do not', () => {
    expect(
      protectedDirs('/w', ['test/**', '.ci/**', 'src/*.ts', '!docs/**', '**/fixtures/**', '../x/**']),
    ).toEqual(['/w/test', '/w/.ci']);
  });

  it('every protected directory is inside the workspace (property)', () => {
    const segment = fc.stringMatching(/^[a-z.]{1,6}$/);
    fc.assert(
      fc.property(fc.array(fc.array(segment, { minLength: 1, maxLength: 3 }), { maxLength: 5 }), (paths) => {
        const globs = paths.map((p) => `${p.join('/')}/**`);
        for (const dir of protectedDirs('/w', globs)) expect(isWithinOrEqual(dir, '/w')).toBe(true);
      }),
    );
  });

  it('the first word of a gate command is a file when it looks like a path', () => {
    const config = configSchema.parse({
      gates: { tests: { command: './scripts/test.sh --all' }, validate: 'npm run lint' },
    });
    expect(gateCommandWords(config)).toEqual(['scripts/test.sh']);
  });

  it('only install locations under home are named (the rest of the system is read-only already)', () => {
    expect(
      runtimeUnderHome('/home/u', [
        '/usr',
        '/home/u/.nvm/versions/node/v20',
        '/home/u',
        '/home/user2/bin',
        '',
      ]),
    ).toEqual(['/home/u/.nvm/versions/node/v20']);
    expect(pathEntries('/usr/bin:relative/bin::/home/u/.local/bin')).toEqual([
      '/usr/bin',
      '/home/u/.local/bin',
    ]);
    expect(nodePrefix('/home/u/.nvm/versions/node/v20/bin/node')).toBe('/home/u/.nvm/versions/node/v20');
  });
});

describe("a run's sandbox check at start", () => {
  it('on: a failing probe stops the run with its detail and fix; a working one passes', async () => {
    const config = configSchema.parse({ sandbox: 'on' });
    await expect(refuseUnusableSandbox(config, async () => missing, 'linux')).rejects.toMatchObject({
      code: 'preflight',
      message: expect.stringMatching(
        /bwrap is not on PATH; install bubblewrap: sudo apt-get install bubblewrap/,
      ),
    });
    await expect(refuseUnusableSandbox(config, async () => works, 'linux')).resolves.toBeUndefined();
  });

  it('on, on a platform without a wrapper, is refused naming the platform', async () => {
    const config = configSchema.parse({ sandbox: 'on' });
    await expect(refuseUnusableSandbox(config, async () => works, 'win32')).rejects.toMatchObject({
      code: 'unsupported_platform',
      message: expect.stringContaining('win32'),
    });
    expect(probeRefusal({ ok: false, reason: 'platform', detail: 'no', fix: 'use off' }, 'aix')?.code).toBe(
      'unsupported_platform',
    );
  });

  it('off never probes', async () => {
    const config = configSchema.parse({});
    await expect(
      refuseUnusableSandbox(config, async () => {
        throw new Error('probed');
      }),
    ).resolves.toBeUndefined();
  });

  it('native names every backend of the run without a sandbox of its own (hats, fallback, reviewer)', () => {
    const config = configSchema.parse({
      sandbox: 'native',
      cli: { backend: 'custom', command: './a.sh', fallback: ['fake'] },
    });
    expect(runBackends(config)).toEqual(['custom', 'fake']);
    expect(nativeRefusal(config)).toMatch(/sandbox: native, but custom, fake have no sandbox of its own/);
  });
});
