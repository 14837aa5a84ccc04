// The one door to the runtime task file for `ralph tools task` and embedders: loaded on first
// use, so defining the commands loads none of the task code (the `ralph --version` budget).

/**
 * The reads and changes of a runtime task file (`.ralph/agent/tasks.jsonl`): add, ensure, start,
 * close, fail and reopen a task; read them all; the line numbers that are not tasks; with
 * `tasks.source: prd.json`, the prd.json's stories among them and their `passes` set; with
 * `tasks.source: beads`, the beads issues among them and their status set.
 */
export async function openTaskStore() {
  const [changes, file, list, prd, beads] = await Promise.all([
    import('./task-changes.ts'),
    import('./task-file.ts'),
    import('./task-list.ts'),
    import('./prd-stories.ts'),
    import('./beads-issues.ts'),
  ]);
  return {
    addTask: changes.addTask,
    ensureTask: changes.ensureTask,
    startTask: changes.startTask,
    closeTask: changes.closeTask,
    failTask: changes.failTask,
    reopenTask: changes.reopenTask,
    readTasks: file.readTasks,
    unreadableTaskLines: file.unreadableTaskLines,
    readAllTasks: list.readAllTasks,
    prdFileOf: list.prdFileOf,
    taskFilesOf: list.taskFilesOf,
    sourceFileOf: list.sourceFileOf,
    isStory: list.isStory,
    isBeadsIssue: list.isBeadsIssue,
    setStoryPasses: prd.setStoryPasses,
    setBeadsStatus: beads.setBeadsStatus,
  };
}

/** What {@link openTaskStore} gives. */
export type TaskStore = Awaited<ReturnType<typeof openTaskStore>>;
