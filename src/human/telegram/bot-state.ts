import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { appendLine } from '../../state/io/append-line.ts';
import { writeJsonAtomicSync } from '../../state/io/atomic-write.ts';
import { readJsonl } from '../../state/io/jsonl.ts';
import {
  acquireLockFile,
  type LockHolder,
  lockHolderAlive,
  readLock,
  releaseLockFile,
  thisHolder,
} from '../../state/io/lock.ts';
import { checkedLine, looseObject, number, optional, string } from '../../state/loop-state/checks.ts';

// The files one bot shares between the loops of a machine (`$XDG_STATE_HOME/ralph/telegram/<bot>/`):
//   bot.json        {chat_id, offset, offset_at}: the chat it talks to, the next getUpdates offset and
//                   when an update last moved it (poller only; trustedOffset says when it is trusted)
//   poller.lock     the one loop that calls getUpdates (Telegram allows one caller at a time)
//   loops/<run>.json the loops it serves now: run id, workspace, name, pid
//   messages.jsonl  {message_id, run_id, question_id?}: what a reply or a button press is about

/** `bot.json`: written only by the poller. */
export interface BotFile {
  /** The chat that first wrote to the bot (private chats only); undefined until someone has. */
  chat_id?: number | undefined;
  /** The next getUpdates offset: updates before it were handled (a restart does not replay them). */
  offset: number;
  /** When the offset was last moved by an update (ISO time); an offset a day old is not trusted. */
  offset_at?: string | undefined;
}

/** A loop the bot serves (`loops/<run>.json`). */
export interface ServedLoop extends LockHolder {
  run_id: string;
  workspace: string;
  /** What `@name` in a message selects: the workspace's directory name (or the worktree's). */
  name: string;
}

/** A message a loop sent (`messages.jsonl`): a reply to it, or a button on it, goes to that loop. */
export interface SentMessage {
  message_id: number;
  run_id: string;
  workspace: string;
  question_id?: string | undefined;
}

const sentLine = checkedLine<SentMessage>(
  looseObject({
    message_id: number(),
    run_id: string(),
    workspace: string(),
    question_id: optional(string()),
  }),
  'a sent message',
);

const paths = (dir: string) => ({
  bot: join(dir, 'bot.json'),
  lock: join(dir, 'poller.lock'),
  loops: join(dir, 'loops'),
  messages: join(dir, 'messages.jsonl'),
});

export function readBotFile(dir: string): BotFile {
  try {
    const v = JSON.parse(readFileSync(paths(dir).bot, 'utf8')) as Partial<BotFile>;
    return {
      chat_id: typeof v.chat_id === 'number' ? v.chat_id : undefined,
      offset: typeof v.offset === 'number' ? v.offset : 0,
      offset_at: typeof v.offset_at === 'string' ? v.offset_at : undefined,
    };
  } catch {
    return { offset: 0 };
  }
}

export function writeBotFile(dir: string, value: BotFile): void {
  writeJsonAtomicSync(paths(dir).bot, value);
}

/** Adds this loop to the ones the bot serves; `remove` takes it out again (at the end of the run). */
export function registerLoop(dir: string, loop: Omit<ServedLoop, keyof LockHolder>): { remove(): void } {
  const file = join(paths(dir).loops, `${loop.run_id}.json`);
  mkdirSync(paths(dir).loops, { recursive: true });
  writeJsonAtomicSync(file, { ...loop, ...thisHolder() });
  return { remove: () => rmSync(file, { force: true }) };
}

/** The loops the bot serves whose process is alive, oldest first. */
export function servedLoops(dir: string): ServedLoop[] {
  let names: string[];
  try {
    names = readdirSync(paths(dir).loops).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const loops: ServedLoop[] = [];
  for (const n of names) {
    const loop = readLock<ServedLoop>(join(paths(dir).loops, n));
    // Any process of the user can write here: a loop file of other types is not one.
    const valid =
      typeof loop?.run_id === 'string' &&
      typeof loop.workspace === 'string' &&
      typeof loop.name === 'string' &&
      (loop.started_at === undefined || typeof loop.started_at === 'string');
    if (loop && valid && lockHolderAlive(loop)) loops.push(loop);
  }
  return loops.sort((a, b) => (a.started_at ?? '').localeCompare(b.started_at ?? ''));
}

export function recordSent(dir: string, sent: SentMessage): void {
  mkdirSync(dir, { recursive: true });
  appendLine(paths(dir).messages, JSON.stringify(sent));
}

/** The message a loop sent with this id, if one did. */
export function findSent(dir: string, messageId: number): SentMessage | undefined {
  return readJsonl(paths(dir).messages, sentLine).records.findLast((m) => m.message_id === messageId);
}

/**
 * Makes this process the bot's poller if no live process is: true when it holds `poller.lock`. A
 * poller that died leaves a stale lock, which the next loop to try takes over.
 */
export function tryLeadPolling(dir: string, me: LockHolder & { started_at: string }): boolean {
  mkdirSync(dir, { recursive: true });
  return acquireLockFile<LockHolder>(paths(dir).lock, {
    content: me,
    what: 'Telegram poller lock',
    stale: (h) => h === undefined || !lockHolderAlive(h),
    ours: (h) => h.pid === me.pid && h.started_at === me.started_at,
    attempts: 3,
  }).held;
}

export function stopLeading(dir: string, me: LockHolder & { started_at: string }): void {
  releaseLockFile<LockHolder>(paths(dir).lock, (h) => h.pid === me.pid && h.started_at === me.started_at);
}

// Telegram's rules this rests on (Bot API, getUpdates and Update):
// - an update is confirmed, and forgotten, once getUpdates is called with an offset above its id;
//   without an offset, getUpdates returns the earliest unconfirmed update onwards;
// - an unconfirmed update is kept at most 24 hours;
// - after a week without updates, the next update id is chosen at random, so it may be below an
//   offset remembered from before: polling with that offset would confirm (drop) every new message.

/** How long Telegram keeps an update nobody confirmed. */
export const UPDATE_KEPT_MS = 24 * 60 * 60_000;

/** What bot.json remembers of the updates: the next offset, and when an update last moved it. */
export interface OffsetState {
  offset: number;
  offset_at?: string | undefined;
}

/**
 * The offset to poll with, or undefined to poll without one. A remembered offset is trusted only
 * while it is under 24 hours old: then an update came that recently, so ids cannot have restarted
 * (that takes a week of quiet). Older, it is dropped: every update we applied before then is either
 * confirmed or expired at Telegram, so what getUpdates returns without an offset is new — nothing
 * is applied twice, and no restarted id falls below a stale offset and is lost.
 */
export function trustedOffset(state: OffsetState, nowMs: number): number | undefined {
  if (state.offset <= 0 || state.offset_at === undefined) return undefined;
  const at = Date.parse(state.offset_at);
  if (!Number.isFinite(at) || nowMs - at >= UPDATE_KEPT_MS || at - nowMs > UPDATE_KEPT_MS) return undefined;
  return state.offset;
}

/** Whether an update polled for was handled already (below the trusted offset). */
export function alreadyHandled(updateId: number, state: OffsetState, nowMs: number): boolean {
  const offset = trustedOffset(state, nowMs);
  return offset !== undefined && updateId < offset;
}
