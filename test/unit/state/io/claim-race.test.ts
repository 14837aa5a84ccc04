import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LockHolder, lockHolderAlive } from '../../../../src/state/io/lock.ts';
import { readClaims, takeClaim } from '../../../../src/state/parallel-claims.ts';
import { deadPid, makeWorkspace } from '../../../helpers/workspace.ts';

// Claims race deterministically: a claimer's liveness judgement is injected, and the test runs
// another claimer at the exact moment one judges the stale claim — between reading it and acting.

/** A pid no process has any more (a child that already exited and was reaped). */
function staleClaimDir(): { dir: string; dead: number } {
  const dir = makeWorkspace();
  const dead = deadPid();
  // As an older Ralph wrote it: no host, start_time null.
  writeFileSync(
    join(dir, 't.json'),
    JSON.stringify({ task: 't', worker: 'w0', pid: dead, start_time: null }),
  );
  return { dir, dead };
}

/**
 * Judges liveness truthfully, but on its `nth` judgement of the dead holder first runs `meanwhile`
 * (another claimer acting in the gap between this claimer's read and its takeover).
 */
function judgeWith(dead: number, nth: number, meanwhile: () => void): (h: LockHolder) => boolean {
  let seen = 0;
  return (holder) => {
    if (holder.pid === dead && ++seen === nth) meanwhile();
    return lockHolderAlive(holder);
  };
}

function claimNow(dir: string): { worker: string } {
  const files = readdirSync(dir).filter((n) => !n.startsWith('t.json.'));
  expect(files).toEqual(['t.json']);
  return JSON.parse(readFileSync(join(dir, 't.json'), 'utf8'));
}

describe('task claims on the lock core', () => {
  it('two claimers of a free task: exactly one wins', () => {
    const dir = makeWorkspace();
    expect(takeClaim(dir, 't', 'w1', process.pid)).toBe(true);
    expect(takeClaim(dir, 't', 'w2', process.pid)).toBe(false);
    expect(claimNow(dir).worker).toBe('w1');
  });

  it('a claim written before claims named their host is this host’s: its dead holder is taken over', () => {
    const { dir } = staleClaimDir();
    expect(takeClaim(dir, 't', 'w1', process.pid)).toBe(true);
    expect(readClaims(dir)).toMatchObject([{ task: 't', worker: 'w1', pid: process.pid }]);
  });

  // 1: takeClaim's read of the stale claim; 2: removeStaleLock's first judgement, before the
  // takeover guard is taken (the re-judgement under the guard keeps the other claimer's claim).
  for (const nth of [1, 2]) {
    it(`a takeover racing a fresh claim (other claimer acts at judgement ${nth}): one wins, its claim stays`, () => {
      const { dir, dead } = staleClaimDir();
      let other: boolean | undefined;
      const first = takeClaim(dir, 't', 'w1', process.pid, {
        alive: judgeWith(dead, nth, () => {
          other = takeClaim(dir, 't', 'w2', process.pid);
        }),
      });
      expect(other).toBe(true);
      expect(first).toBe(false);
      expect(claimNow(dir).worker).toBe('w2');
    });
  }

  it('three claimers of one stale claim, each judging while the next takes it: one wins', () => {
    const { dir, dead } = staleClaimDir();
    const won: string[] = [];
    const claim = (worker: string, meanwhile?: () => void) => {
      const alive = meanwhile ? judgeWith(dead, 2, meanwhile) : lockHolderAlive;
      if (takeClaim(dir, 't', worker, process.pid, { alive })) won.push(worker);
    };
    claim('w1', () => claim('w2', () => claim('w3')));
    expect(won).toEqual(['w3']);
    expect(claimNow(dir).worker).toBe('w3');
  });
});

describe('takeovers racing at every step of one another', () => {
  const dead = deadPid();

  /**
   * Claimers of one stale claim. Each step any takeover announces is numbered in order; where
   * `schedule` has bit n set, a new claimer runs to the end at step n (its own steps count too).
   * `consulted`: the bits the race read (a step below 8 while a claimer could still start).
   */
  function race(
    schedule: number,
    racers: number,
  ): { won: string[]; dir: string; consulted: number; started: number } {
    const dir = makeWorkspace();
    writeFileSync(
      join(dir, 't.json'),
      JSON.stringify({ task: 't', worker: 'w0', pid: dead, start_time: null }),
    );
    const won: string[] = [];
    let started = 0;
    let steps = 0;
    let consulted = 0;
    const step = () => {
      const n = steps++;
      if (started >= racers) return;
      if (n < 8) consulted |= 1 << n;
      if ((schedule >> n) & 1) claim();
    };
    const claim = () => {
      const worker = `w${++started}`;
      if (takeClaim(dir, 't', worker, process.pid, { step })) won.push(worker);
    };
    claim();
    return { won, dir, consulted, started };
  }

  it('up to four claimers, a new one at any set of steps: exactly one wins, its claim on disk', () => {
    // A schedule that agrees with an earlier race on every bit that race read runs exactly as it
    // did: each of the 256 is covered, and only the ~70 distinct races touch the disk.
    const ran: { schedule: number; consulted: number; started: number }[] = [];
    for (let schedule = 0; schedule < 1 << 8; schedule++) {
      if (ran.some((r) => ((r.schedule ^ schedule) & r.consulted) === 0)) continue;
      const { won, dir, consulted, started } = race(schedule, 4);
      ran.push({ schedule, consulted, started });
      expect({ schedule, won }).toEqual({ schedule, won: [expect.any(String)] });
      expect(claimNow(dir).worker).toBe(won[0]);
    }
    // The skipped schedules repeat a race; the deepest ones (all four claimers) are among those run.
    expect(ran.some((r) => r.started === 4)).toBe(true);
    // ~70 races of claim files (each a create, link and unlink or more): ~3 s idle, ~15 s at load 14.
  }, 60_000);
});
