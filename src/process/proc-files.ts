import { closeSync, openSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import type { ProcessEntry } from './process-table.ts';

/** /proc/<pid>/stat as the process table needs it, plus the kernel's flags. */
export interface ProcStat extends ProcessEntry {
  /** The kernel's PF_* flags (PF_KTHREAD marks a kernel thread). */
  flags: number;
}

/** Parses /proc/<pid>/stat (Linux); undefined when there is no /proc or the process is gone. */
export function readProcStat(pid: number): ProcStat | undefined {
  const text = readProcBytes(`/proc/${pid}/stat`)?.toString('latin1');
  if (text === undefined) return undefined;
  // The command name may contain spaces and parentheses; fields resume after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    pgid: Number(rest[2]),
    // Clock ticks after boot.
    startTime: rest[19] ?? '',
    flags: Number(rest[6]),
  };
}

let bootMs: number | undefined;

/** Boot time plus a start in clock ticks (100 a second on Linux), in epoch ms; undefined without /proc. */
export function ticksToEpochMs(ticks: number): number | undefined {
  if (!Number.isFinite(ticks)) return undefined;
  if (bootMs === undefined) {
    const m = /^btime (\d+)$/m.exec(readProcFile('/proc/stat') ?? '');
    if (!m) return undefined;
    bootMs = Number(m[1]) * 1000;
  }
  return bootMs + ticks * 10;
}

/**
 * Processes (and threads) created on this machine since boot (`processes` in /proc/stat), or
 * undefined without /proc. Two equal readings mean nothing at all was started in between.
 */
export function forkCount(): number | undefined {
  const m = /^processes (\d+)$/m.exec(readProcFile('/proc/stat') ?? '');
  return m ? Number(m[1]) : undefined;
}

// One buffer for every /proc read of a sweep, grown for a larger file: after each iteration the
// sweep reads /proc/stat, ns_last_pid and the environ of each new process. One open, read and
// close into it costs a quarter of readFileSync's stat and buffer growth on these generated files.
let procBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * A /proc file's bytes, whole, or undefined when it cannot be read (gone, another user's). The view
 * is valid until the next call.
 */
export function readProcBytes(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === procBuffer.length) {
        const bigger = Buffer.allocUnsafe(procBuffer.length * 2);
        procBuffer.copy(bigger, 0, 0, length);
        procBuffer = bigger;
      }
      const n = readSync(fd, procBuffer, length, procBuffer.length - length, null);
      if (n === 0) return procBuffer.subarray(0, length);
      length += n;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A small generated /proc file as text (latin1), or undefined when it cannot be read. */
function readProcFile(path: string): string | undefined {
  return readProcBytes(path)?.toString('latin1');
}

let pidRange: { max: number } | null | undefined;

/**
 * The pid the kernel handed out last in this pid namespace, and the highest pid it hands out, when
 * /proc belongs to this namespace (it lists this process under its own pid); undefined otherwise.
 * New pids follow the last one upwards and wrap around to low numbers after the highest.
 */
export function lastPid(): { last: number; max: number } | undefined {
  if (pidRange === undefined) {
    try {
      const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'latin1').trim());
      pidRange =
        Number.isInteger(max) && max > 0 && readlinkSync('/proc/self') === String(process.pid)
          ? { max }
          : null;
    } catch {
      pidRange = null;
    }
  }
  if (pidRange === null) return undefined;
  const last = Number(readProcFile('/proc/sys/kernel/ns_last_pid')?.trim() || Number.NaN);
  return Number.isInteger(last) && last > 0 ? { last, max: pidRange.max } : undefined;
}

/** True when `pid` is a process (its thread group's leader), not another thread of one (Linux). */
export function isProcess(pid: number): boolean {
  const m = /^Tgid:\s*(\d+)$/m.exec(readProcFile(`/proc/${pid}/status`) ?? '');
  return m !== null && Number(m[1]) === pid;
}

const PF_KTHREAD = 0x00200000;
let kthreaddIsPid2: boolean | undefined;

/**
 * The pids of kernel threads: kthreadd (pid 2, when this pid namespace sees the kernel's) and its
 * children. They have no environment and no user process among them can carry anything of ours
 * (a usermode helper the kernel starts there gets the kernel's fixed environment). Empty when
 * unknown (another namespace, no /proc): then nothing is skipped.
 */
export function kernelThreadPids(): Set<number> {
  // kthreadd never exits: once pid 2 is (or is not) the kernel's, it stays so.
  kthreaddIsPid2 ??= ((readProcStat(2)?.flags ?? 0) & PF_KTHREAD) !== 0;
  if (!kthreaddIsPid2) return new Set();
  let children: string;
  try {
    children = readFileSync('/proc/2/task/2/children', 'latin1');
  } catch {
    return new Set();
  }
  const pids = new Set<number>([2]);
  for (const token of children.split(' ')) if (token !== '') pids.add(Number(token));
  return pids;
}
