// The one door to the memory files for `ralph tools memory` and embedders: loaded on first use,
// so defining the commands loads none of the memory code (the `ralph --version` budget).

/**
 * The reads and changes of the memory files (a project's `.ralph/agent/memories.md`, the user's
 * across projects): read, add, delete, search, the prompt's primer, promote one to the user's file.
 */
export async function openMemoryStore() {
  const [file, prompt, user] = await Promise.all([
    import('./memories-file.ts'),
    import('./memory-prompt.ts'),
    import('./user-memories.ts'),
  ]);
  return {
    readMemories: file.readMemories,
    addMemory: file.addMemory,
    deleteMemory: file.deleteMemory,
    searchMemories: prompt.searchMemories,
    primeMemories: prompt.primeMemories,
    promoteMemory: user.promoteMemory,
    userMemoriesFile: user.userMemoriesFile,
  };
}

/** What {@link openMemoryStore} gives. */
export type MemoryStore = Awaited<ReturnType<typeof openMemoryStore>>;
