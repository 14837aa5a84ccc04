import { type FSWatcher, statSync, watch } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import { isNegated, pathMatcher, patternBase } from '../../config/path-patterns.ts';
import { ralphPaths } from '../../state/paths.ts';

/** setTimeout's ceiling (~24.8 days); longer waits are re-checked by the caller. */
export const MAX_TIMER_MS = 2_147_483_647;

export type WakeReason = 'changed' | 'event' | 'cooldown' | 'runtime' | 'interrupted' | 'control';

export interface IdleWaitOptions {
  workspace: string;
  /** `event_loop.idle_watch` patterns (config/path-patterns.ts). Empty: wait for the cooldown only. */
  watch: readonly string[];
  eventsFile: string;
  /** Bytes of the events file already read; growth past it wakes the loop. */
  eventsOffset: number;
  /** Heartbeat: wake after this long even if nothing changed (0 = no heartbeat when watching). */
  cooldownMs: number;
  /** Never wait past the runtime limit. */
  maxWaitMs: number;
  signal: AbortSignal | undefined;
  /** The control inbox and the bytes of it already read: a new command (stop, guidance …) wakes the loop. */
  inbox: string;
  inboxOffset: number;
}

const isDirectory = (abs: string) => statSync(abs, { throwIfNoEntry: false })?.isDirectory() === true;
const parentOf = (rel: string) => {
  const d = posix.dirname(rel);
  return d === '.' ? '' : d;
};

/**
 * The persistent-mode idle wait: no agent call until a path the patterns select changes, an event is appended,
 * the cooldown heartbeat elapses, or the loop is stopped. Changes Ralph itself makes under `.ralph/`
 * are ignored.
 */
export function waitWhileIdle(o: IdleWaitOptions): Promise<WakeReason> {
  return new Promise((resolveWait) => {
    const watchers: FSWatcher[] = [];
    const timers: NodeJS.Timeout[] = [];
    let done = false;
    const finish = (reason: WakeReason) => {
      if (done) return;
      done = true;
      for (const w of watchers) w.close();
      for (const t of timers) clearTimeout(t);
      o.signal?.removeEventListener('abort', onAbort);
      resolveWait(reason);
    };
    const onAbort = () => finish('interrupted');
    if (o.signal?.aborted) return finish('interrupted');
    o.signal?.addEventListener('abort', onAbort, { once: true });

    const ws = resolve(o.workspace);
    const ralphDir = ralphPaths(ws).dir + sep;
    const matches = pathMatcher(o.watch);
    for (const entry of o.watch) {
      if (isNegated(entry)) continue;
      const base = patternBase(entry);
      // The nearest existing directory: the base itself (everything under it may match), else
      // where the base is still to appear (a file, or a path not created yet).
      let dir = base;
      while (dir !== '' && !isDirectory(join(ws, dir))) dir = parentOf(dir);
      const recursive = dir === base;
      try {
        const w = watch(join(ws, dir), { recursive }, (_e, name) => {
          if (name === null) return finish('changed');
          const abs = resolve(ws, dir, String(name));
          if ((abs + sep).startsWith(ralphDir)) return; // Ralph's own writes
          const rel = relative(ws, abs).split(sep).join('/');
          // A step toward a base that does not exist yet wakes the loop too: it then watches deeper.
          const towardBase = !recursive && (base === rel || base.startsWith(`${rel}/`));
          if (towardBase || matches(rel, isDirectory(abs))) finish('changed');
        });
        watchers.push(w);
      } catch {
        // An unwatchable path (permissions, too many watchers) falls back to the cooldown heartbeat.
      }
    }
    for (const w of watchers) w.on('error', () => {});

    const poll = () => {
      if (done) return;
      try {
        if (statSync(o.eventsFile).size > o.eventsOffset) return finish('event');
      } catch {}
      try {
        if (statSync(o.inbox).size !== o.inboxOffset) return finish('control');
      } catch {}
      timers.push(setTimeout(poll, 250));
    };
    poll();
    const heartbeat = o.watch.length === 0 || o.cooldownMs > 0 ? o.cooldownMs : Number.POSITIVE_INFINITY;
    if (heartbeat <= o.maxWaitMs)
      timers.push(setTimeout(() => finish('cooldown'), Math.min(heartbeat, MAX_TIMER_MS)));
    else timers.push(setTimeout(() => finish('runtime'), Math.min(Math.max(0, o.maxWaitMs), MAX_TIMER_MS)));
  });
}
