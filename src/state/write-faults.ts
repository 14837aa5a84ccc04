/**
 * Fault injection for the crash-safety tests (and anyone who wants to check a build): Ralph kills
 * itself with SIGKILL right before (`RALPH_FAULT_KILL_BEFORE_WRITE=N`) or right after
 * (`RALPH_FAULT_KILL_AFTER_WRITE=N`) its N-th durable write (every atomic file write and JSON-lines
 * append counts, in order), or sends itself signals after it (`RALPH_FAULT_SIGNAL_AFTER_WRITE=
 * N:SIGINT,SIGINT`, as a user pressing Ctrl-C twice at that moment), so a test can enumerate every
 * write point — every phase — of a run. Unset: no effect.
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
  const signals = /^(\d+):([A-Z,]+)$/.exec(process.env.RALPH_FAULT_SIGNAL_AFTER_WRITE ?? '');
  if (signals && Number(signals[1]) === writes)
    for (const signal of signals[2]!.split(',')) process.kill(process.pid, signal as NodeJS.Signals);
  return result;
}
