import { lstatSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';

/** How many numbered names are tried before a name no one could have planted (pid and time). */
const NUMBERED_TRIES = 20;

/**
 * Moves `from` to `to`, or to the first free `to-2`, `to-3`… (then a pid-and-time name) when
 * something is already there: nothing is overwritten or deleted. Returns where it went; throws the
 * rename's error when even that name cannot be used.
 */
export function moveAside(from: string, to: string): string {
  mkdirSync(dirname(to), { recursive: true });
  const names = [to, ...Array.from({ length: NUMBERED_TRIES }, (_, i) => `${to}-${i + 2}`)];
  const free = names.find((name) => !taken(name)) ?? `${to}-${process.pid}-${Date.now()}`;
  renameSync(from, free);
  return free;
}

function taken(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
