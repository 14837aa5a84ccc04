import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { IN_PROCESS_TIERS, LongestFirst } from './test/setup/longest-first.ts';
import { sharedModuleLeaks } from './test/setup/shared-modules.ts';

const ROOT = import.meta.dirname;

/**
 * The supervision and crash suite (agent groups killed, marked leftovers swept, kill -9 and
 * --resume, locks and their takeover, Ctrl-C): run a second time with the ps process table that
 * macOS uses, forced on Linux. The variable reaches every ralph these tests start (they inherit
 * process.env). Whole files, not a subset: almost every test in them reaches the table through the
 * agent-group kill, the end-of-run sweep or the lock's holder check; the few that do not add ~8 s.
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

/** Test files under `dir` (any depth) whose text matches `pattern`. */
function filesMatching(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(dir, name))
    .filter((file) => pattern.test(readFileSync(file, 'utf8')));
}

/**
 * In-process test files that replace a module (vi.mock): they need modules of their own, so they
 * run isolated; the rest of the in-process tiers share one module graph per worker (importing the
 * sources once per worker instead of once per file was most of test:fast's time).
 */
const mocksModules = IN_PROCESS_TIERS.flatMap((dir) => filesMatching(dir, /\bvi\.(do)?mock\(/));

/**
 * The tiers that start processes (test/e2e, test/integration, test/fuzz) share one module graph per
 * worker too, one pool of workers whichever tier the next file is from: a fresh graph per file cost
 * ~0.5 s of CPU each, ~150 files. Their files that mock a module or change the clock, env or
 * directory (test/setup/shared-modules.ts) would leak into the next file: they run isolated (test/e2e
 * may have none: test/unit/e2e-shared-modules.test.ts).
 */
const leaksModules = [
  ...new Set(sharedModuleLeaks(ROOT, 'test').map((leak) => leak.slice(0, leak.indexOf(': ')))),
].filter((file) => file.endsWith('.test.ts') && !IN_PROCESS_TIERS.some((dir) => file.startsWith(`${dir}/`)));

export default defineConfig({
  test: {
    globalSetup: ['test/setup/isolated-state.ts'],
    setupFiles: ['test/setup/workspaces.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration and e2e tests spawn real process groups; 2 cores here.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: [...IN_PROCESS_TIERS.map((dir) => `${dir}/**`), ...leaksModules],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: leaksModules } },
      {
        extends: true,
        test: {
          name: 'in-process',
          include: IN_PROCESS_TIERS.map((dir) => `${dir}/**/*.test.ts`),
          exclude: mocksModules,
          isolate: false,
        },
      },
      { extends: true, test: { name: 'in-process-mocks', include: mocksModules } },
      {
        extends: true,
        test: { name: 'ps-table', include: processTableSuite, env: { RALPH_PROCESS_TABLE: 'ps' } },
      },
    ],
  },
});
