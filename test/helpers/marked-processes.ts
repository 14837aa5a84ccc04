import { readdirSync, readFileSync } from 'node:fs';

/** Live processes whose environment says they were started by a Ralph iteration in `workspace`. */
export function markedProcesses(workspace: string): { pid: number; mark: string }[] {
  const found: { pid: number; mark: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let env: string[];
    let stat: string;
    try {
      env = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
    const mark = env.find((e) => e.startsWith('RALPH_ITERATION_MARK='));
    if (mark && env.includes(`RALPH_WORKSPACE_ROOT=${workspace}`))
      found.push({ pid, mark: mark.slice('RALPH_ITERATION_MARK='.length) });
  }
  return found;
}

/** Kills what a test left behind: every marked process of these workspaces, and these pids. */
export function killLeftovers(workspaces: string[], pids: number[] = []): void {
  const targets = [...pids, ...workspaces.flatMap((w) => markedProcesses(w).map((p) => p.pid))];
  // Never 0 or 1: kill(0) would hit the test runner's own process group.
  for (const pid of targets.filter((p) => Number.isInteger(p) && p > 1)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Host pids whose command line contains `text` (arguments joined by NUL). */
export function processesRunning(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(text) && !zombie(pid)) found.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A process that has exited but not been reaped (state Z): it runs nothing. */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
  } catch {
    return true;
  }
}
