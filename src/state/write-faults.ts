/**
 * Fault injection for the crash-safety tests (and anyone who wants to check a build): Ralph kills
 * itself with SIGKILL right before (`RALPH_FAULT_KILL_BEFORE_WRITE=N`) or right after
 * (`RALPH_FAULT_KILL_AFTER_WRITE=N`) its N-th durable write (every atomic file write and JSON-lines
 * append counts, in order), or sends itself signals after it (`RALPH_FAULT_SIGNAL_AFTER_WRITE=
 * N:SIGINT,SIGINT`, as a user pressing Ctrl-C twice at that moment) or before it
 * (`RALPH_FAULT_SIGNAL_BEFORE_WRITE=N:SIGSTOP`: frozen mid-way, e.g. holding a lock, until SIGCONT), so
 * a test can enumerate every write point — every phase — of a run. Unset: no effect.
 */
let writes = 0;

function target(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Sends the signals `name` (`N:SIG,SIG`) asks for when this is the N-th write. */
function signalAt(name: string): void {
  const signals = /^(\d+):([A-Z,]+)$/.exec(process.env[name] ?? '');
  if (signals && Number(signals[1]) === writes)
    for (const signal of signals[2]!.split(',')) process.kill(process.pid, signal as NodeJS.Signals);
}

/** Runs one durable write, counting it (and dying at the configured point). */
export function durableWrite<T>(write: () => T): T {
  writes++;
  if (target('RALPH_FAULT_KILL_BEFORE_WRITE') === writes) process.kill(process.pid, 'SIGKILL');
  signalAt('RALPH_FAULT_SIGNAL_BEFORE_WRITE');
  const result = write();
  if (target('RALPH_FAULT_KILL_AFTER_WRITE') === writes) process.kill(process.pid, 'SIGKILL');
  signalAt('RALPH_FAULT_SIGNAL_AFTER_WRITE');
  return result;
}
