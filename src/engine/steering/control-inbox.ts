import { statSync } from 'node:fs';
import { type InboxCommand, readInbox } from '../../human/control-files.ts';
import type { LoopState, QueuedGuidance } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';

/** Consumed ids kept in state.json: enough to recognise a replayed inbox, bounded in size. */
const MAX_CONSUMED = 500;

/** Kinds the loop acts on; answers and approvals are settled in questions.jsonl by their writer. */
const AT_START_KEPT = new Set(['guidance']);

/**
 * Reads the commands the loop has not consumed yet and applies them to the state, which is then
 * saved with their ids in one write (a crash re-reads them, never applies one twice). At the start
 * of a session only guidance is kept: a stop or pause sent to an earlier session is not replayed.
 * Returns whether one of them asked to kill the agent now.
 */
export function consumeControl(ctx: RunContext, opts: { atStart?: boolean } = {}): { stopNow: boolean } {
  const { state } = ctx;
  const control = state.control ?? { offset: 0, consumed: [] };
  const read = readInbox(ctx.paths.inbox, control.offset);
  if (read.nextOffset === control.offset && read.commands.length === 0) return { stopNow: false };
  const seen = new Set(control.consumed);
  let stopNow = false;
  for (const command of read.commands) {
    if (seen.has(command.id)) continue;
    seen.add(command.id);
    control.consumed.push(command.id);
    announce(ctx, command);
    if (opts.atStart && !AT_START_KEPT.has(command.kind)) continue;
    stopNow = apply(ctx, command) || stopNow;
  }
  if (read.malformed > 0)
    ctx.emit({
      type: 'notice',
      level: 'warn',
      message: `${read.malformed} line(s) of ${ctx.paths.inbox} are not commands; skipped (write them with \`ralph tell\`, \`ralph stop\` …)`,
    });
  control.offset = read.nextOffset;
  if (control.consumed.length > MAX_CONSUMED)
    control.consumed.splice(0, control.consumed.length - MAX_CONSUMED);
  state.control = control;
  ctx.persist({ fsync: false });
  return { stopNow };
}

function announce(ctx: RunContext, c: InboxCommand): void {
  ctx.emit({
    type: 'control.received',
    iteration: ctx.state.current?.number ?? ctx.state.iterations,
    id: c.id,
    kind: c.kind,
    text: c.text,
    ref: c.ref,
    source: c.source,
  });
}

/** Applies one command to the state; true when it asks to kill the running agent. */
function apply(ctx: RunContext, c: InboxCommand): boolean {
  const { state } = ctx;
  switch (c.kind) {
    case 'guidance': {
      const entry = guidanceOf(c);
      if (entry) queueGuidance(state, entry);
      return false;
    }
    case 'stop':
      state.stop_requested = true;
      return false;
    case 'stop_now':
      state.stop_requested = true;
      return true;
    case 'pause':
      state.paused = true;
      return false;
    case 'resume':
      state.paused = false;
      return false;
    default:
      return false;
  }
}

/** A hook's `on_error: suspend`: the loop pauses as `ralph pause` pauses it, until `ralph resume`. */
export function pauseForHook(state: LoopState): void {
  state.paused = true;
}

/** A `ralph tell` as the prompt carries it; undefined for another command or an empty text. */
function guidanceOf(c: InboxCommand): QueuedGuidance | undefined {
  return c.kind === 'guidance' && c.text
    ? { id: c.id, kind: 'guidance', text: c.text, source: c.source }
    : undefined;
}

/**
 * The guidance a session's start would queue from the inbox (what consumeControl keeps at the start),
 * read without consuming it: for `ralph run --dry-run`.
 */
export function unreadGuidance(inbox: string, control: LoopState['control']): QueuedGuidance[] {
  const seen = new Set(control?.consumed ?? []);
  const out: QueuedGuidance[] = [];
  for (const command of readInbox(inbox, control?.offset ?? 0).commands) {
    if (seen.has(command.id)) continue;
    seen.add(command.id);
    const entry = guidanceOf(command);
    if (entry) out.push(entry);
  }
  return out;
}

/** Queues what a human said for the next prompt (guidance, an answer, a rejection's reason). */
export function queueGuidance(state: LoopState, entry: QueuedGuidance): void {
  state.guidance = [...(state.guidance ?? []), entry];
}

/** Delivered: the guidance a prompt carried is not repeated (what arrived meanwhile stays queued). */
export function dropGuidance(state: LoopState, delivered: readonly string[]): void {
  state.guidance = (state.guidance ?? []).filter((g) => !delivered.includes(g.id));
}

/** The loop acts on the `ralph stop` it was asked for: the request is taken. */
export function takeStopRequest(state: LoopState): void {
  state.stop_requested = false;
}

/** The loop acts on a human's timeout (`human.on_timeout: stop`): it is taken. */
export function clearHumanTimeout(state: LoopState): void {
  state.human_timeout = null;
}

/** True when the inbox holds bytes the loop has not read (cheap: one stat). */
export function controlPending(ctx: RunContext): boolean {
  try {
    // No inbox (the common case) costs a stat, not an exception.
    const size = statSync(ctx.paths.inbox, { throwIfNoEntry: false })?.size;
    return size !== undefined && size !== (ctx.state.control?.offset ?? 0);
  } catch {
    return false;
  }
}

/**
 * The control channel while an agent turn runs (the iteration's agent, the reviewer): reads what
 * arrived and aborts the turn as `stop_requested` when it was `ralph stop --now`. Every engine turn
 * calls it from its `onTick`, so a stop kills whichever agent is running.
 */
export function pollStopNow(ctx: RunContext, turn: AbortController): void {
  if (controlPending(ctx) && consumeControl(ctx).stopNow && !turn.signal.aborted)
    turn.abort('stop_requested');
}
