import { join } from 'node:path';

/** The `.ralph/` layout of a workspace (DESIGN.md §1 "Files"). */
export interface RalphPaths {
  root: string;
  dir: string;
  state: string;
  lock: string;
  stopRequest: string;
  currentEvents: string;
  logs: string;
  runs: string;
  agentDir: string;
  scratchpad: string;
  tasks: string;
  memories: string;
}

export function ralphPaths(workspaceRoot: string): RalphPaths {
  const dir = join(workspaceRoot, '.ralph');
  return {
    root: workspaceRoot,
    dir,
    state: join(dir, 'state.json'),
    lock: join(dir, 'loop.lock'),
    stopRequest: join(dir, 'stop-requested'),
    currentEvents: join(dir, 'current-events'),
    logs: join(dir, 'logs'),
    runs: join(dir, 'runs'),
    agentDir: join(dir, 'agent'),
    scratchpad: join(dir, 'agent', 'scratchpad.md'),
    tasks: join(dir, 'agent', 'tasks.jsonl'),
    memories: join(dir, 'agent', 'memories.md'),
  };
}
