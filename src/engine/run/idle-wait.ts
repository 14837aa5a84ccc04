import { statSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import { isNegated, pathMatcher, patternBase } from '../../config/path-patterns.ts';
import { type TreeWatch, watchTree } from '../../git/tree-watch.ts';
import { type PollOptions, poll } from '../../state/io/jsonl.ts';
import { ralphPaths } from '../../state/paths.ts';

/** setTimeout's ceiling (~24.8 days); longer waits are re-checked by the caller. */
export const MAX_TIMER_MS = 2_147_483_647;

/** More directories than this under one watched base: the wait falls back to the heartbeat. */
const MAX_WATCHED_DIRS = 20_000;

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
  /** How the events/inbox poll waits between reads (default node:timers/promises; tests: the fake clock). */
  sleep?: PollOptions['sleep'];
}

const isDirectory = (abs: string) => statSync(abs, { throwIfNoEntry: false })?.isDirectory() === true;
const parentOf = (rel: string) => {
  const d = posix.dirname(rel);
  return d === '.' ? '' : d;
};

/** What was appended since the wait began: an event (`event`), a control command (`control`), or nothing. */
function appended(o: IdleWaitOptions): 'event' | 'control' | undefined {
  const events = sizeOf(o.eventsFile);
  if (events !== undefined && events > o.eventsOffset) return 'event';
  const inbox = sizeOf(o.inbox);
  return inbox !== undefined && inbox !== o.inboxOffset ? 'control' : undefined;
}

/** A file's size, or undefined when it cannot be read (missing, no permission). */
function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/**
 * The persistent-mode idle wait: no agent call until a path the patterns select changes, an event is appended,
 * the cooldown heartbeat elapses, or the loop is stopped. Changes Ralph itself makes under `.ralph/`
 * are ignored.
 */
export function waitWhileIdle(o: IdleWaitOptions): Promise<WakeReason> {
  return new Promise((resolveWait) => {
    const watches: TreeWatch[] = [];
    const timers: NodeJS.Timeout[] = [];
    const polling = new AbortController();
    let done = false;
    const finish = (reason: WakeReason) => {
      if (done) return;
      done = true;
      for (const w of watches) w.close();
      for (const t of timers) clearTimeout(t);
      polling.abort();
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
      const top = join(ws, dir);
      const toWorkspace = (rel: string) => relative(ws, resolve(top, rel)).split(sep).join('/');
      // The git cache's watcher: one watch per directory, no recursive fs.watch. A tree it cannot
      // watch whole (permissions, too many directories) falls back to the cooldown heartbeat.
      const w = watchTree(top, {
        recursive,
        maxDirs: MAX_WATCHED_DIRS,
        skip: (rel) => (resolve(top, rel) + sep).startsWith(ralphDir), // Ralph's own writes
        onChange: (rel) => {
          if (rel === null) return finish('changed');
          const path = toWorkspace(rel);
          // A step toward a base that does not exist yet wakes the loop too: it then watches deeper.
          const towardBase = !recursive && (base === path || base.startsWith(`${path}/`));
          if (towardBase || matches(path, isDirectory(join(ws, path)))) finish('changed');
        },
      });
      watches.push(w);
    }

    void (async () => {
      for await (const reason of poll(() => appended(o), {
        signal: polling.signal,
        intervalMs: 250,
        sleep: o.sleep,
      }))
        if (reason) return finish(reason);
    })();
    const heartbeat = o.watch.length === 0 || o.cooldownMs > 0 ? o.cooldownMs : Number.POSITIVE_INFINITY;
    if (heartbeat <= o.maxWaitMs)
      timers.push(setTimeout(() => finish('cooldown'), Math.min(heartbeat, MAX_TIMER_MS)));
    else timers.push(setTimeout(() => finish('runtime'), Math.min(Math.max(0, o.maxWaitMs), MAX_TIMER_MS)));
  });
}

/**
 * Sleeps `ms` (never past `maxWaitMs`) unless a control command arrives (the inbox's size is no
 * longer `inboxOffset`: `ralph resume`, `ralph stop` …) or `signal` aborts: the one way Ralph
 * waits between polls (the cooldown, a parked limit, a pause, a merge wait, the merge queue's).
 */
export function sleepUntilCommand(
  o: Pick<IdleWaitOptions, 'workspace' | 'inbox' | 'inboxOffset' | 'maxWaitMs' | 'signal'>,
  ms: number,
): Promise<WakeReason | undefined> {
  if (ms <= 0) return Promise.resolve(undefined);
  // No events file to watch: an offset nothing grows past.
  return waitWhileIdle({
    ...o,
    watch: [],
    eventsFile: o.inbox,
    eventsOffset: Number.POSITIVE_INFINITY,
    cooldownMs: ms,
  });
}
