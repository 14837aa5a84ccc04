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
