/**
 * Fault injection for the crash-safety tests (and anyone who wants to check a build): Ralph kills
 * itself with SIGKILL right before (`RALPH_FAULT_KILL_BEFORE_WRITE=N`) or right after
 * (`RALPH_FAULT_KILL_AFTER_WRITE=N`) its N-th durable write (every atomic file write and JSON-lines
 * append counts, in order), so a test can enumerate every write point of a run. Unset: no effect.
 */
let writes = 0;

function target(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Runs one durable write, counting it (and dying at the configured point). */
export function durableWrite<T>(write: () => T): T {
  writes++;
  if (target('RALPH_FAULT_KILL_BEFORE_WRITE') === writes) process.kill(process.pid, 'SIGKILL');
  const result = write();
  if (target('RALPH_FAULT_KILL_AFTER_WRITE') === writes) process.kill(process.pid, 'SIGKILL');
  return result;
}
