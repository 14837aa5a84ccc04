import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { removeWhenDone } from '../../helpers/workspace.ts';

const searches = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/backends/registry.ts', async (original) => {
  const real = await original<typeof import('../../../src/backends/registry.ts')>();
  return {
    ...real,
    pickAutoBackend: (...args: Parameters<typeof real.pickAutoBackend>) => {
      searches.count++;
      return real.pickAutoBackend(...args);
    },
  };
});

const { resolveRunConfig } = await import('../../../src/engine/run/resolve-run.ts');

describe('cli.backend: auto', () => {
  it('searches PATH once per resolution (the schema check and the pick share it), and not at all without auto', () => {
    const cwd = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-auto-')));
    const bin = join(cwd, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\n');
    chmodSync(join(bin, 'claude'), 0o755);
    const env = { PATH: bin, HOME: '/nonexistent' };

    writeFileSync(join(cwd, 'ralph.yml'), 'cli:\n  backend: auto\n');
    searches.count = 0;
    expect(resolveRunConfig({ cwd, env }).config.cli.backend).toBe('claude');
    expect(searches.count).toBe(1);

    writeFileSync(join(cwd, 'ralph.yml'), 'cli:\n  backend: claude\n');
    searches.count = 0;
    expect(resolveRunConfig({ cwd, env }).config.cli.backend).toBe('claude');
    expect(searches.count).toBe(0);
  });
});
