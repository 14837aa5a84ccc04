import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/isolated-state.ts'],
    setupFiles: ['test/setup/workspaces.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration and e2e tests spawn real process groups; 2 cores here.
    maxWorkers: 2,
  },
});
