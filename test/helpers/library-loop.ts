import { join } from 'node:path';
import { type LoopSummary, loadConfig, resolveBackend, runLoop } from '../../src/index.ts';

type RunLoopOptions = Parameters<typeof runLoop>[0];

/**
 * `runLoop` through the library as an embedder calls it: the workspace's ralph.yml loaded, its
 * backend, the prompt `work`; `extra` adds or replaces options (a sweep, a mode, reporters).
 */
export function runLoopIn(dir: string, extra: Partial<RunLoopOptions> = {}): Promise<LoopSummary> {
  const { config } = loadConfig({ file: join(dir, 'ralph.yml'), cwd: dir });
  return runLoop({
    workspace: dir,
    config,
    prompt: 'work',
    backend: resolveBackend(config.cli.backend, config),
    ...extra,
  });
}
