import { existsSync, type FSWatcher, statSync, watch } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { ralphPaths } from '../../state/paths.ts';

/** setTimeout's ceiling (~24.8 days); longer waits are re-checked by the caller. */
export const MAX_TIMER_MS = 2_147_483_647;

export type WakeReason = 'changed' | 'event' | 'cooldown' | 'runtime' | 'interrupted' | 'control';

export interface IdleWaitOptions {
  workspace: string;
  /** `event_loop.idle_watch` entries, relative to the workspace. Empty: wait for the cooldown only. */
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

/**
 * The persistent-mode idle wait: no agent call until a watched path changes, an event is appended,
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

    const ralphDir = ralphPaths(resolve(o.workspace)).dir + sep;
    const relevant = (abs: string) => !(abs + sep).startsWith(ralphDir);
    for (const entry of o.watch) {
      const abs = resolve(o.workspace, entry);
      try {
        if (existsSync(abs) && statSync(abs).isDirectory()) {
          const w = watch(abs, { recursive: true }, (_e, name) => {
            if (name === null || relevant(resolve(abs, String(name)))) finish('changed');
          });
          watchers.push(w);
        } else {
          // A file, or a path that does not exist yet: watch its directory for that name.
          const dir = dirname(abs);
          const name = basename(abs);
          if (!existsSync(dir)) continue;
          watchers.push(
            watch(dir, (_e, changed) => (changed === null || String(changed) === name) && finish('changed')),
          );
        }
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

export function describeWatch(workspace: string, paths: readonly string[]): string {
  return paths.map((p) => relative(workspace, resolve(workspace, p)) || '.').join(', ');
}
