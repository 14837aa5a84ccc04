import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { durableWrite } from './write-faults.ts';

/** Writes a file so readers see either the old or the new content, never a torn one (temp + fsync + rename). */
export function writeFileAtomicSync(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  durableWrite(() => writeFileAtomic.sync(path, content, { encoding: 'utf8' }));
}

export function writeJsonAtomicSync(path: string, value: unknown): void {
  writeFileAtomicSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
