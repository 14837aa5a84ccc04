import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkAgentAvailable } from '../../../../src/engine/readiness/health-checks.ts';
import { readTextCached, statCached, statKey } from '../../../../src/state/io/stat-cache.ts';
import { pinTimes, sameSizeSameMtime } from '../../../helpers/file-times.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

/** Puts the clock past the racy window, so what was just written counts as settled and is kept. */
function settle(): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('statCached', () => {
  it('computes once while the file is unchanged and settled, again after a same-size same-mtime rewrite', () => {
    const file = join(makeWorkspace(), 'notes.md');
    writeFileSync(file, 'alpha\n');
    pinTimes(file);
    let reads = 0;
    const upper = statCached((p) => {
      reads++;
      return statKey(p);
    });
    settle();
    const first = upper(file);
    expect(upper(file)).toBe(first);
    expect(reads).toBe(1);
    sameSizeSameMtime(file, 'gamma\n');
    vi.useRealTimers();
    settle();
    expect(upper(file)).not.toBe(first);
    expect(reads).toBe(2);
  });

  it('within the racy window computes every time: a same-size same-mtime edit is seen', () => {
    const file = join(makeWorkspace(), 'notes.md');
    writeFileSync(file, 'alpha\n');
    pinTimes(file);
    expect(readTextCached(file)).toEqual({ text: 'alpha\n' });
    sameSizeSameMtime(file, 'gamma\n');
    expect(readTextCached(file)).toEqual({ text: 'gamma\n' });
  });

  it('sees a missing file appear and go, and does not remember what compute threw', () => {
    const file = join(makeWorkspace(), 'later.md');
    settle();
    expect(readTextCached(file)).toEqual({ missing: true });
    writeFileSync(file, 'here\n');
    expect(readTextCached(file)).toEqual({ text: 'here\n' });
    rmSync(file);
    expect(readTextCached(file)).toEqual({ missing: true });
    let calls = 0;
    const failing = statCached(() => {
      calls++;
      throw new Error('unreadable');
    });
    expect(() => failing(file)).toThrow('unreadable');
    expect(() => failing(file)).toThrow('unreadable');
    expect(calls).toBe(2);
  });
});

describe('the agent lookup of the health check', () => {
  it('sees an executable put earlier on PATH, and the found one losing its execute bit', () => {
    const early = makeWorkspace();
    const late = makeWorkspace();
    writeFileSync(join(late, 'lookup-agent'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(late, 'lookup-agent'), 0o755);
    settle();
    const env = { PATH: `${early}:${late}` };
    expect(checkAgentAvailable('lookup-agent', env).message).toBe(
      `lookup-agent → ${join(late, 'lookup-agent')}`,
    );
    expect(checkAgentAvailable('lookup-agent', env).message).toBe(
      `lookup-agent → ${join(late, 'lookup-agent')}`,
    );
    writeFileSync(join(early, 'lookup-agent'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(early, 'lookup-agent'), 0o755);
    expect(checkAgentAvailable('lookup-agent', env).message).toBe(
      `lookup-agent → ${join(early, 'lookup-agent')}`,
    );
    vi.useRealTimers();
    settle();
    expect(checkAgentAvailable('lookup-agent', env).level).toBe('ok');
    chmodSync(join(early, 'lookup-agent'), 0o644);
    expect(checkAgentAvailable('lookup-agent', env).message).toBe(
      `lookup-agent → ${join(late, 'lookup-agent')}`,
    );
    chmodSync(join(late, 'lookup-agent'), 0o644);
    expect(checkAgentAvailable('lookup-agent', env).level).toBe('fatal');
  });
});

describe('hashFile', () => {
  it('sees a same-size rewrite whose mtime was put back (the change time still moves)', async () => {
    const { mkdtempSync, writeFileSync, utimesSync, statSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { hashFile } = await import('../../../../src/state/io/stat-cache.ts');
    const dir = mkdtempSync(join(tmpdir(), 'hash-'));
    try {
      const file = join(dir, 'validate.sh');
      writeFileSync(file, 'exit 0\n');
      utimesSync(file, new Date(2020, 0, 1), new Date(2020, 0, 1));
      // A minute on: the file's change time is past the racy window, so the hash is remembered.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
      const before = hashFile(file);
      expect(hashFile(file)).toBe(before);
      const { mtime } = statSync(file);
      writeFileSync(file, 'exit 1\n');
      utimesSync(file, mtime, mtime);
      expect(hashFile(file)).not.toBe(before);
    } finally {
      vi.useRealTimers();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
