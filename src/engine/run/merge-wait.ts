import { RalphError } from '../../errors.ts';
import { pullRequestPollMs } from '../../forge/forge-remote.ts';
import { setStatus } from '../../state/loop-state/run-status.ts';
import { type RunContext, runtimeLeftMs } from '../context/run-context.ts';
import { noteElapsed } from '../context/spend-and-limits.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { quotaWait } from '../decide/quota-wait.ts';
import { endMergeWait } from '../workflow-steps/milestone-prs.ts';
import { boundaryStop, parkCountdown, sleepUnlessStopped } from './between-iterations.ts';

/**
 * forge.wait_for_merge: no agent call while a milestone's pull request waits for its merge. Status
 * `waiting_for_merge`; the pull request is polled once a minute, at once on `ralph resume` (any
 * control command wakes the wait); `ralph stop`, Ctrl-C and the runtime limit end it. Merged: the
 * next milestone starts from the updated target. Closed unmerged: the run stops (`pr_closed`).
 */
export async function waitForMerge(ctx: RunContext): Promise<Stop | undefined> {
  const { state } = ctx;
  const f = state.forge;
  const forge = ctx.forge;
  if (!f || f.waiting === null || !forge) return undefined;
  const pr = f.prs.find((p) => p.number === f.waiting);
  if (!pr) {
    endMergeWait(f, undefined);
    return undefined;
  }
  const announce = (action: 'waiting' | 'merged' | 'closed') =>
    ctx.emit({
      type: 'forge.pull_request',
      iteration: state.iterations,
      action,
      number: pr.number,
      url: pr.url,
      draft: false,
      milestone: pr.milestone,
      branch: pr.branch,
      base: pr.base,
    });
  const env = ctx.options.env ?? process.env;
  let announced = false;
  for (;;) {
    let now: Awaited<ReturnType<typeof forge.pulls.get>> | undefined;
    try {
      now = await forge.pulls.get(pr.number);
    } catch (error) {
      if (error instanceof StopWhileParked) throw error;
      // The forge being away is no reason to stop waiting: the next poll asks again.
      const message = `could not read PR #${pr.number}: ${(error as Error).message}`;
      if (!ctx.warned.has(message)) ctx.emit({ type: 'notice', level: 'warn', message });
      ctx.warned.add(message);
    }
    if (now?.merged) {
      endMergeWait(f, pr, 'merged');
      setStatus(state, 'running');
      ctx.persist();
      announce('merged');
      return undefined;
    }
    if (now?.state === 'closed') {
      endMergeWait(f, pr, 'closed');
      setStatus(state, 'running');
      ctx.persist();
      announce('closed');
      return stop(
        'pr_closed',
        `PR #${pr.number} (milestone "${pr.milestone}") was closed without being merged: ${pr.url}; the next milestone waits on it`,
      );
    }
    if (!announced) {
      setStatus(state, 'waiting_for_merge');
      ctx.persist();
      announce('waiting');
      announced = true;
    }
    // Wakes on a command (`ralph resume`, `ralph stop`) or Ctrl-C, else at the next poll.
    await sleepUnlessStopped(ctx, pullRequestPollMs(env));
    noteElapsed(state, ctx.elapsed());
    const end = boundaryStop(ctx);
    if (end) {
      setStatus(state, 'running');
      return end;
    }
  }
}

// The other wait on GitHub: its hourly quota.

/** `ralph stop`, Ctrl-C or a limit while the run waited for GitHub's quota: the run ends with that stop. */
export class StopWhileParked extends Error {
  readonly stop: Stop;
  constructor(stop: Stop) {
    super(stop.message);
    this.name = 'StopWhileParked';
    this.stop = stop;
  }
}

const clock = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;

/**
 * The run's wait for a spent GitHub hourly quota (the forge client's `waitForReset`): parked until
 * the reset — in `ralph status`, the TUI and the events as `loop.parked`, a countdown each minute —
 * then true, for the same request to go again. A reset after `max_runtime` ends is a
 * `forge_rate_limited` error saying when it resets; a stop while waiting ends the run with it.
 */
export function forgeQuotaWaiter(ctx: RunContext): (resetMs: number, message: string) => Promise<boolean> {
  return async (resetMs, message) => {
    const left = runtimeLeftMs(ctx);
    const plan = quotaWait(ctx.now(), resetMs, left);
    if (plan.kind === 'stop')
      throw new RalphError(
        'forge_rate_limited',
        `${message}; the quota resets at ${clock(plan.resetAt)}, after this run's max_runtime ends (${clock(plan.deadline)}), so the run stops here: \`ralph run --resume\` after the reset`,
      );
    const parked = { until: plan.until, message: `GitHub API quota used up: ${message}`, transient: false };
    ctx.persistPark(parked);
    try {
      const end = await parkCountdown(ctx, parked);
      if (end) throw new StopWhileParked(end);
      return true;
    } finally {
      ctx.persistPark(null);
    }
  };
}
