import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';

/** A whole second since the epoch: utimes puts it back exactly (a Date would round the nanoseconds). */
export const SECOND = 1_700_000_000;

/** Sets a file's access and modification times to SECOND. */
export function pinTimes(file: string): void {
  utimesSync(file, SECOND, SECOND);
}

/**
 * Rewrites `file` (its times pinned at SECOND) with `text` of the same size and pins the times
 * again: size and mtime are as before, only the change time moves. A cache keyed on size and mtime
 * alone would miss the edit.
 */
export function sameSizeSameMtime(file: string, text: string): void {
  const before = statSync(file, { bigint: true });
  expect(Buffer.byteLength(text)).toBe(Number(before.size));
  writeFileSync(file, text);
  pinTimes(file);
  expect(statSync(file, { bigint: true }).mtimeNs).toBe(before.mtimeNs);
}
