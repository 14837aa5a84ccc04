import { readdirSync, readFileSync } from 'node:fs';

/** True when a process with this pid exists (a zombie counts as gone on Linux). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = readProcStat(pid);
  return stat === undefined ? true : stat.state !== 'Z';
}

interface ProcStat {
  pid: number;
  state: string;
  pgrp: number;
  /** Start time in clock ticks after boot: with the pid, identifies one process across pid reuse. */
  startTime: string;
}

/** Parses /proc/<pid>/stat (Linux); undefined elsewhere or when the process is gone. */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name may contain spaces and parentheses; fields resume after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pid, state: rest[0] ?? '?', pgrp: Number(rest[2]), startTime: rest[19] ?? '' };
}

/** Live (non-zombie) members of a process group. Uses /proc on Linux, kill(-pgid, 0) elsewhere. */
export function liveGroupMembers(pgid: number): number[] {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return [];
  }
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [pgid];
  }
  const members: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readProcStat(pid);
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') members.push(pid);
  }
  return members;
}
