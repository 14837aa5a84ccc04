import { homedir } from 'node:os';
import { join } from 'node:path';
import { RalphError } from '../../errors.ts';
import { withFileLock } from '../io/file-lock.ts';
import { deleteMemory, insertMemory, readMemories } from './memories-file.ts';
import { type MemoryEntry, normalizeMemoryContent } from './memory.ts';

/**
 * Memories with `scope: user`: one file per user, `$XDG_DATA_HOME/ralph/memories.md` (default
 * `~/.local/share/ralph/memories.md`), in the format of a project's `.ralph/agent/memories.md`, put
 * into every project's prompt after the project's own memories.
 */
export function userMemoriesFile(env: NodeJS.ProcessEnv): string {
  const data = env.XDG_DATA_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.local', 'share');
  return join(data, 'ralph', 'memories.md');
}

/** What `ralph tools memory promote` did. */
export interface Promotion {
  entry: MemoryEntry;
  /** True when an earlier promote had copied it already (and stopped before removing it here). */
  resumed: boolean;
}

const sameText = (a: string, b: string) =>
  normalizeMemoryContent(a).toLowerCase() === normalizeMemoryContent(b).toLowerCase();

/**
 * Moves the project memory `id` into the user's file, keeping its id, type, tags and date. Both
 * files are locked (the user's first, always, so two promoting loops cannot deadlock); the user's
 * copy is written before the project's is removed, so a crash leaves it in both and a re-run
 * finishes the move. A user memory that already says the same is refused (a duplicate).
 */
export function promoteMemory(projectFile: string, userFile: string, id: string): Promotion {
  return withFileLock(userFile, () =>
    withFileLock(projectFile, () => {
      const entry = readMemories(projectFile).find((e) => e.id === id);
      if (!entry)
        throw new RalphError(
          'memory_not_found',
          `no memory "${id}" in ${projectFile}; find the ids with \`ralph tools memory list\``,
        );
      const user = readMemories(userFile);
      if (user.some((e) => e.id === id)) {
        deleteMemory(projectFile, id);
        return { entry, resumed: true };
      }
      const twin = user.find((e) => sameText(e.content, entry.content));
      if (twin)
        throw new RalphError(
          'memory_duplicate',
          `${userFile} already holds this memory as ${twin.id}; remove the project's copy with \`ralph tools memory delete ${id}\``,
        );
      insertMemory(userFile, entry);
      deleteMemory(projectFile, id);
      return { entry, resumed: false };
    }),
  );
}
