import { defineConfig } from 'vitest/config';

/**
 * The supervision and crash suite (agent groups killed, marked leftovers swept, kill -9 and
 * --resume, locks and their takeover, Ctrl-C): run a second time with the ps process table that
 * macOS uses, forced on Linux. The variable reaches every ralph these tests start (they inherit
 * process.env).
 */
const processTableSuite = [
  'test/integration/supervisor.test.ts',
  'test/integration/process-sweep.test.ts',
  'test/integration/library-sweep.test.ts',
  'test/integration/lock.test.ts',
  'test/integration/workspace-lock.test.ts',
  'test/e2e/supervision.test.ts',
  'test/e2e/process-hygiene.test.ts',
  'test/e2e/resume-and-control.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/setup/isolated-state.ts'],
    setupFiles: ['test/setup/workspaces.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration and e2e tests spawn real process groups; 2 cores here.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'ps-table', include: processTableSuite, env: { RALPH_PROCESS_TABLE: 'ps' } },
      },
    ],
  },
});
