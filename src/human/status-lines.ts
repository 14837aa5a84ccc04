import { describePullRequests } from '../observe/describe-event.ts';
import { formatCost, formatNumber, stopText } from '../observe/format.ts';
import { formatAge, formatSpan } from '../state/io/time-format.ts';
import type { LoopStatusView } from './status-view.ts';

/** `waiting for PR #3 to be merged (<url>; \`ralph resume\` checks now)`. */
function waitingForMerge(state: LoopStatusView): string {
  const pr = state.forge?.prs.find((p) => p.number === state.forge?.waiting);
  return pr
    ? `waiting for PR #${pr.number} to be merged (${pr.url}; \`ralph resume\` checks now)`
    : 'waiting for a pull request to be merged';
}

/**
 * The status lines a person reads: what the loop is doing and for how long ("running 4m12s,
 * iteration 7/30, last event 12s ago"), with ages and durations in words, never raw timestamps.
 */
export function humanStatus(
  state: LoopStatusView,
  o: {
    running: boolean;
    crashed: boolean;
    stopRequested: boolean;
    pid: number | undefined;
    now: number;
    lastEventAt: number | undefined;
  },
): string[] {
  const updated = Date.parse(state.updated_at);
  // elapsed_ms is saved at every step; while the loop runs, the time since that save counts too.
  const elapsed =
    state.elapsed_ms + (o.running && Number.isFinite(updated) ? Math.max(0, o.now - updated) : 0);
  const iteration = state.current
    ? `iteration ${state.current.number}/${state.max_iterations} (for ${formatSpan(o.now - Date.parse(state.current.started_at))})`
    : `iteration ${state.iterations}/${state.max_iterations}`;
  const parked = state.parked && state.parked.until > o.now ? state.parked : null;
  const event =
    o.lastEventAt === undefined ? 'no events yet' : `last event ${formatAge(o.now - o.lastEventAt)}`;
  let head: string;
  if (o.running) {
    const waiting = state.status === 'waiting_for_human' ? state.waiting_for : null;
    const doing = waiting
      ? `waiting for a human (${waiting.kind} ${waiting.id}: ${JSON.stringify(waiting.text.slice(0, 80))}; \`ralph ${waiting.kind === 'question' ? 'answer' : 'approve'} ${waiting.id}${waiting.kind === 'question' ? ' "…"' : ''}\`${waiting.kind === 'approval' ? ` or \`ralph reject ${waiting.id} "why"\`` : ''});`
      : state.status === 'paused'
        ? 'paused (`ralph resume` goes on);'
        : state.status === 'waiting_for_merge'
          ? `${waitingForMerge(state)};`
          : parked
            ? `parked for another ${formatSpan(parked.until - o.now)} (${parked.message})`
            : state.idle
              ? `idle — waiting for changes${typeof state.idle_next_scan_at === 'number' ? (state.idle_next_scan_at > o.now ? ` (next scan in ${formatSpan(state.idle_next_scan_at - o.now)})` : ' (next scan due)') : ''}; running`
              : 'running';
    head = `${doing} ${formatSpan(elapsed)}, ${iteration}, ${event}${o.stopRequested ? ', stop requested' : ''} (pid ${o.pid})`;
  } else if (o.crashed) {
    head = `not running — the loop (pid ${state.pid}) died in ${iteration}; continue with \`ralph run --resume\` or start over with --fresh`;
  } else {
    const ended = Number.isFinite(updated) ? ` ${formatAge(o.now - updated)}` : '';
    head = `${state.status}${ended} after ${state.iterations} iteration${state.iterations === 1 ? '' : 's'} in ${formatSpan(state.elapsed_ms)}${state.stop_reason ? ` — ${stopText(state.stop_reason, state.stop_message, ': ')}` : ''}`;
  }
  const queued = state.guidance?.length ?? 0;
  const prs = state.forge?.prs ?? [];
  return [
    `run ${state.run_id}: ${head}`,
    ...(prs.length > 0 ? [`  ${describePullRequests(prs)} (${prs.map((p) => p.url).join(', ')})`] : []),
    ...(queued > 0 ? [`  ${queued} message(s) from a human queued for the next iteration`] : []),
    `  backend ${state.backend} · tokens ${formatNumber(state.tokens.total)} · cost ${formatCost(state.cost_usd)} · consecutive failures ${state.consecutive_failures}`,
    `  log ${state.log_file}`,
  ];
}
