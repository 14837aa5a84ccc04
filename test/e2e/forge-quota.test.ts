import { afterEach, describe, expect, it } from 'vitest';
import { type ForgeProject, forgeProject } from '../helpers/forge-workspace.ts';
import { readRecords, readState, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

// Issue 36: a spent GitHub hourly quota parks the run until its reset (as an agent's rate limit
// does), within max_runtime, visible in status, resumable after kill -9.

let project: ForgeProject | undefined;
afterEach(async () => {
  await project?.github.close();
  project = undefined;
});

/** The next pull request opened answers 403 with the quota spent, resetting `seconds` from now. */
function spendQuota(p: ForgeProject, seconds: number): number {
  const reset = Math.ceil(Date.now() / 1000) + seconds;
  p.github.state.faults.push({
    method: 'POST',
    path: /\/pulls$/,
    status: 403,
    headers: {
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(reset),
      'x-ratelimit-limit': '5000',
    },
    body: { message: 'API rate limit exceeded for user ID 1.' },
  });
  return reset * 1000;
}

/** When state.json says the run is parked until (0 while it has none, or no state.json yet). */
function parkedUntil(dir: string): number {
  try {
    return readState(dir).parked?.until ?? 0;
  } catch {
    return 0;
  }
}

const pullPosts = (p: ForgeProject) =>
  p.github.requests.filter((r) => r.method === 'POST' && /\/pulls$/.test(r.path));

describe('forge: the GitHub hourly quota', () => {
  it('parks the run until the reset (ralph status says so), then opens the pull request and goes on', async () => {
    project = await forgeProject('wait_for_merge: false');
    const p = project;
    // Far enough ahead that the run meets it parked after its first iteration (the start takes seconds).
    const resetAt = spendQuota(p, 8);
    const run = startRalph(['run'], p.dir, p.env);
    await waitFor(() => parkedUntil(p.dir) > resetAt, 20_000, 'state.json parked');
    const status = await runRalph(['status'], p.dir);
    expect(status.stdout).toMatch(/parked for another .*GitHub API quota used up.*iteration 1\/10/);
    const r = await run.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The refused request, then the same one once the quota reset, and milestone 2's.
    const posts = pullPosts(p);
    expect(posts).toHaveLength(3);
    expect(posts[1]?.at).toBeGreaterThanOrEqual(resetAt);
    expect(p.github.state.pulls.map((x) => x.head)).toEqual(['ralph/foundation', 'ralph/features']);
    expect(readState(p.dir).stop_reason).toBe('completed');
    expect(readState(p.dir).parked ?? null).toBeNull();
    expect(readRecords(p.dir).map((x) => x.iteration)).toEqual([1, 2, 3, 4]);
  }, 60_000);

  it('kill -9 while parked, then --resume: waits out the rest and finishes with one PR per milestone', async () => {
    project = await forgeProject('wait_for_merge: false');
    const p = project;
    const resetAt = spendQuota(p, 8);
    const first = startRalph(['run'], p.dir, p.env);
    await waitFor(() => parkedUntil(p.dir) > resetAt, 20_000, 'state.json parked');
    first.child.kill('SIGKILL');
    await first.done;
    const killedAt = Date.now();
    const r = await runRalph(['run', '--resume'], p.dir, p.env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The resumed run waited out the park before it asked GitHub to open anything again.
    const later = pullPosts(p).filter((x) => x.at > killedAt);
    expect(later.length).toBeGreaterThan(0);
    for (const post of later) expect(post.at).toBeGreaterThanOrEqual(resetAt);
    expect(p.github.state.pulls.map((x) => x.head)).toEqual(['ralph/foundation', 'ralph/features']);
    const iterations = readRecords(p.dir).map((x) => x.iteration);
    expect(new Set(iterations).size).toBe(iterations.length); // each recorded once
  }, 60_000);

  it('ralph stop ends the wait at once, as cancelled: no request goes again before the reset', async () => {
    project = await forgeProject('wait_for_merge: false');
    const p = project;
    const resetAt = spendQuota(p, 60);
    const run = startRalph(['run'], p.dir, p.env);
    await waitFor(() => parkedUntil(p.dir) > resetAt, 20_000, 'state.json parked');
    const stopped = await runRalph(['stop'], p.dir);
    expect(stopped.code, stopped.stderr).toBe(0);
    const r = await run.done;
    expect(Date.now()).toBeLessThan(resetAt);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(p.dir).stop_reason).toBe('cancelled');
    expect(pullPosts(p)).toHaveLength(1);
  }, 60_000);

  it('a reset after max_runtime stops the run at once, saying when the quota resets', async () => {
    project = await forgeProject('wait_for_merge: false');
    const p = project;
    spendQuota(p, 3600);
    const r = await runRalph(['run', '--max-runtime', '600'], p.dir, p.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /rate limit is used up.*the quota resets at \d\d:\d\d UTC, after this run's max_runtime ends \(\d\d:\d\d UTC\)/,
    );
    expect(readState(p.dir).parked ?? null).toBeNull();
  }, 60_000);
});
