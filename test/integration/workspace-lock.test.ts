import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LockHeldError } from '../../src/errors.ts';
import { readLock, thisHolder } from '../../src/state/io/lock.ts';
import { ralphPaths } from '../../src/state/paths.ts';
import { acquireWorkspaceLock, lockTwinPath, workspaceLockHolder } from '../../src/state/workspace-lock.ts';
import { deadPid, makeWorkspace } from '../helpers/workspace.ts';

/** A workspace with its `.ralph/` and a state directory of its own (the twin's home). */
function setup() {
  const root = makeWorkspace();
  mkdirSync(join(root, '.ralph'));
  const env = { XDG_STATE_HOME: makeWorkspace() };
  const paths = ralphPaths(root);
  return { paths, env, twin: lockTwinPath(root, env) };
}

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A live process other than this one, as another loop would be. */
function otherLiveHolder() {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(child);
  return {
    pid: child.pid as number,
    host: hostname(),
    started_at: new Date().toISOString(),
    run_id: 'other',
  };
}

describe('the workspace lock and its twin', () => {
  it('a deleted .ralph/loop.lock does not let a second loop in: the twin names the live holder', () => {
    const { paths, env, twin } = setup();
    const held = acquireWorkspaceLock(paths, 'run-a', env);
    expect(readLock(twin)?.pid).toBe(process.pid);
    rmSync(paths.lock);
    expect(() => acquireWorkspaceLock(paths, 'run-b', env)).toThrow(LockHeldError);
    expect(() => acquireWorkspaceLock(paths, 'run-b', env)).toThrow(`pid ${process.pid}`);
    // The refused start left nothing of its own behind.
    expect(existsSync(paths.lock)).toBe(false);
    expect(workspaceLockHolder(paths, env)?.pid).toBe(process.pid);
    held.release();
    expect(existsSync(twin)).toBe(false);
    acquireWorkspaceLock(paths, 'run-c', env).release();
  });

  it('re-asserting puts back a deleted or rewritten lock file, and costs nothing while unchanged', () => {
    const { paths, env, twin } = setup();
    const held = acquireWorkspaceLock(paths, 'run-a', env);
    expect(held.reassert()).toEqual({ kind: 'held' });
    rmSync(paths.lock);
    expect(held.reassert()).toEqual({ kind: 'restored', files: [paths.lock] });
    expect(readLock(paths.lock)?.run_id).toBe('run-a');
    // A forgery naming another live process: the twin is ours, so the workspace is.
    writeFileSync(paths.lock, JSON.stringify(otherLiveHolder()));
    expect(held.reassert()).toEqual({ kind: 'restored', files: [paths.lock] });
    expect(readLock(paths.lock)?.pid).toBe(process.pid);
    rmSync(twin);
    writeFileSync(paths.lock, 'garbage');
    expect(held.reassert()).toEqual({ kind: 'restored', files: [twin, paths.lock] });
    expect(held.reassert()).toEqual({ kind: 'held' });
    held.release();
    expect(existsSync(paths.lock) || existsSync(twin)).toBe(false);
  });

  it('a twin naming this process with another lock, or gone with its directory, is put back', () => {
    const { paths, env, twin } = setup();
    const held = acquireWorkspaceLock(paths, 'run-a', env);
    // Our pid and start time, not our lock: alive by every test, but never written by this holder.
    writeFileSync(twin, JSON.stringify({ ...thisHolder(), started_at: '2001-01-01T00:00:00.000Z' }));
    expect(held.reassert()).toEqual({ kind: 'restored', files: [twin] });
    rmSync(join(twin, '..'), { recursive: true });
    expect(held.reassert()).toEqual({ kind: 'restored', files: [twin] });
    expect(readLock(twin)?.run_id).toBe('run-a');
    held.release();
  });

  it('a twin another live loop took is lost: said once, and release leaves that loop its files', () => {
    const { paths, env, twin } = setup();
    const held = acquireWorkspaceLock(paths, 'run-a', env);
    rmSync(twin);
    const other = otherLiveHolder();
    writeFileSync(twin, JSON.stringify(other));
    const check = held.reassert();
    expect(check).toEqual({ kind: 'lost', holder: expect.objectContaining({ pid: other.pid }) });
    expect(held.lostTo?.pid).toBe(other.pid);
    held.release();
    expect(readLock(twin)?.pid).toBe(other.pid);
  });

  it('a twin left by a killed holder, and its temp files, are taken over at the next start (crash-safe)', () => {
    const { paths, env, twin } = setup();
    const dead = deadPid();
    mkdirSync(join(twin, '..'), { recursive: true });
    writeFileSync(
      twin,
      JSON.stringify({ pid: dead, host: hostname(), started_at: new Date().toISOString() }),
    );
    // The temp file a start killed mid-create left beside it; a live starter's stays.
    const deadTemp = `${twin}.${dead}.0badf00d.tmp`;
    const liveTemp = `${twin}.${process.pid}.0badf00d.tmp`;
    writeFileSync(deadTemp, '{}');
    writeFileSync(liveTemp, '{}');
    const held = acquireWorkspaceLock(paths, 'run-a', env);
    expect(held.tookOver?.pid).toBe(dead);
    expect(readLock(twin)?.pid).toBe(process.pid);
    expect(existsSync(deadTemp)).toBe(false);
    expect(existsSync(liveTemp)).toBe(true);
    held.release();
  });
});
