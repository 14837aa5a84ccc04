import { chmodSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeCodeCache } from '../../src/state/cache/code-cache.ts';
import { makeWorkspace, RALPH, startProcess } from '../helpers/workspace.ts';

// bin/ralph compiles the CLI bundle through V8's code cache in $XDG_CACHE_HOME/ralph/code/
// (src/state/cache/code-cache.ts). A damaged entry must never run: it is ignored and written again.

/** The cache's entries: name → bytes. */
function entries(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name))]));
}

/** Whether `bytes` is a whole entry: its data matches the digest its header gives for its key. */
function whole(bytes: Buffer): boolean {
  const key = bytes.toString('latin1', 0, 200).split(' ')[2] ?? '';
  return decodeCodeCache(bytes, key) !== undefined;
}

async function version(cwd: string, cacheHome: string): Promise<string> {
  const r = await startProcess(process.execPath, [RALPH, '--version'], cwd, { XDG_CACHE_HOME: cacheHome })
    .done;
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

describe('the code cache of the CLI bundle', () => {
  it('is written once, owner-only, then read; a damaged or foreign entry is ignored and rewritten', async () => {
    const cwd = makeWorkspace({});
    const cacheHome = makeWorkspace({});
    const dir = join(cacheHome, 'ralph', 'code');
    const printed = await version(cwd, cacheHome);
    expect(printed).toMatch(/^\d+\.\d+\.\d+/);
    const first = entries(dir);
    expect(first.size).toBeGreaterThan(0); // the command definitions and commander: compiled, then cached
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const [name, bytes] of first) {
      expect(whole(bytes), name).toBe(true);
      expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    }

    // A hit writes nothing.
    expect(await version(cwd, cacheHome)).toBe(printed);
    expect(entries(dir)).toEqual(first);

    // Each kind of damage in turn, to every entry: data changed under a valid header, cut short,
    // not an entry at all, readable by others.
    const damages = [
      (file: string) => {
        const bytes = readFileSync(file);
        bytes[bytes.length - 1] = ((bytes[bytes.length - 1] as number) + 1) % 256;
        writeFileSync(file, bytes);
      },
      (file: string) => truncateSync(file, 150),
      (file: string) => writeFileSync(file, '{}\n'),
      (file: string) => chmodSync(file, 0o644),
    ];
    for (const damage of damages) {
      for (const name of first.keys()) damage(join(dir, name));
      expect(await version(cwd, cacheHome)).toBe(printed);
      const after = entries(dir);
      expect([...after.keys()].sort()).toEqual([...first.keys()].sort());
      for (const [name, bytes] of after) {
        expect(whole(bytes), name).toBe(true);
        expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
      }
    }
  });

  it('runs the same without a usable cache directory', async () => {
    const cwd = makeWorkspace({});
    const cacheHome = makeWorkspace({ ralph: 'a file where the directory would be\n' });
    const printed = await version(cwd, cacheHome);
    expect(printed).toMatch(/^\d+\.\d+\.\d+/);
    expect(readFileSync(join(cacheHome, 'ralph'), 'utf8')).toBe('a file where the directory would be\n');
  });
});
