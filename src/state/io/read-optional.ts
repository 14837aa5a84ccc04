import { readFileSync } from 'node:fs';

/**
 * What a failed read other than a missing file means to the caller: `'absent'` treats an
 * unreadable file (a directory, no permission) like a missing one; `'throw'` lets that error
 * through, so only a file that does not exist reads as undefined.
 */
export type UnreadableFile = 'absent' | 'throw';

/**
 * The one optional text-file read: the file's UTF-8 text, or undefined when it does not exist
 * (and, with `unreadable: 'absent'`, when it cannot be read at all). Each caller names which
 * failures it treats as "no file" instead of keeping its own try/readFileSync/catch.
 *
 * ```ts
 * readOptional('.ralph/.gitignore', 'absent');  // undefined when missing or unreadable
 * readOptional('progress.md', 'throw');         // undefined when missing; EACCES throws
 * ```
 */
export function readOptional(path: string, unreadable: UnreadableFile): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (unreadable === 'absent' || (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
