import { setTimeout as sleep } from 'node:timers/promises';
import type { KilledProcess } from './marked-processes.ts';
import {
  escapedDescendantGroups,
  isPidAlive,
  liveGroupMembers,
  probeSignal,
  processCommand,
} from './pids.ts';

/** Whether any process (a zombie included) is still in the group. */
function groupExists(pgid: number): boolean {
  const error = probeSignal(-pgid);
  return error === null || error === 'EPERM';
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Stops a whole process group: SIGTERM, then SIGKILL after `graceMs` if anything is still alive.
 * Resolves with the pids that had to be SIGKILLed (empty when SIGTERM sufficed) and every process
 * that was alive when the kill began.
 */
export async function killGroup(
  pgid: number,
  graceMs: number,
): Promise<{ forced: number[]; killed: KilledProcess[] }> {
  // An empty group whose leader is gone has no members whose descendants could have escaped
  // (orphans were reparented, and the iteration's mark sweep finds them): skip the /proc scan, the
  // common case. A leader that moved itself to another group is still alive, and is handled below.
  if (!groupExists(pgid) && !isPidAlive(pgid)) return { forced: [], killed: [] };
  // Descendants that moved to groups of their own die with the agent too.
  const groups = [pgid, ...escapedDescendantGroups(pgid)];
  const alive = () => groups.flatMap((g) => liveGroupMembers(g));
  const killed = alive().map((pid) => ({ pid, command: processCommand(pid) }));
  if (killed.length === 0) return { forced: [], killed };
  for (const g of groups) signalGroup(g, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
    if (alive().length === 0) return { forced: [], killed };
  }
  const forced = alive();
  for (const g of groups) signalGroup(g, 'SIGKILL');
  for (let i = 0; i < 40 && alive().length > 0; i++) await sleep(25);
  return { forced, killed };
}

/** Immediate SIGKILL of a group, for the second Ctrl-C. */
export function killGroupNow(pgid: number): void {
  signalGroup(pgid, 'SIGKILL');
}
