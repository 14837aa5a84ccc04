import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { LoopState, LoopStatusView } from '../../src/index.ts';
import * as api from '../../src/index.ts';
import { ROOT } from '../helpers/workspace.ts';

/**
 * The package root's runtime exports, in its three tiers (DESIGN.md §6) plus errors and config
 * helpers. A new export fails this list: add it here, to docs/reference/api.md and a JSDoc on purpose.
 */
const RUNTIME_EXPORTS = {
  run: [
    'earlierChecklistRun',
    'newRunId',
    'planFirstIteration',
    'prepareWorktree',
    'refuseUnaskedChecklistRestart',
    'refuseUnsupportedWithRepos',
    'resolveRun',
    'resolveRunCached',
    'runLoop',
    'runParallel',
  ],
  observe: ['createConsoleReporter', 'describeEvent', 'describeWorker', 'startDashboard'],
  controlAndInspect: [
    'answer',
    'approve',
    'controlledWorkspace',
    'pause',
    'readEvents',
    'readStatus',
    'reject',
    'resume',
    'stop',
    'tell',
  ],
  setUpAndLookBack: [
    'probeAgent',
    'probeFailure',
    'preflight',
    'checkHooks',
    'describeRunSandbox',
    'runSandboxFacts',
    'sandboxReport',
    'refuseChangedGitConfig',
    'isGitRepo',
    'describeImport',
    'importGithubIssues',
    'humanStatus',
    'coordinatorPid',
    'parallelPaths',
    'readParallelState',
    'repoTopOf',
    'workerWorkspace',
    'damagedRegistryLines',
    'pruneRegistry',
    'registryFile',
    'userStateDir',
    'ensureRuntimeIgnored',
    'configJsonSchema',
    'WORKSPACE_SCHEMA_PATH',
    'withSchemaModeline',
    'checkBackend',
    'setBackend',
    'findConfigFile',
    'describeAgent',
    'installHint',
    'knownBackends',
    'aggregateStats',
    'applyRescue',
    'ask',
    'assessReadiness',
    'cleanWorktrees',
    'damagedQuestionLines',
    'DEFAULT_WORKTREE',
    'DEFAULT_PLAN_PROMPT',
    'estimateRun',
    'explainConfig',
    'findPreset',
    'findTask',
    'findTemplate',
    'initPreset',
    'initFrom',
    'detectPeerProject',
    'describeLine',
    'PEERS',
    'enableSandbox',
    'listRescues',
    'listRuns',
    'listWorktrees',
    'MEMORY_TYPES',
    'openMemoryStore',
    'findSkill',
    'loadSkills',
    'skillDirs',
    'skillText',
    'openQuestions',
    'sendProgressNote',
    'MAX_PROGRESS_CHARS',
    'openTaskStore',
    'parseSince',
    'PRESETS',
    'ralphPaths',
    'projectRootOf',
    'readHistory',
    'readRecords',
    'readyTasks',
    'recordsFileOf',
    'repoRoot',
    'RESCUE_PREFIX',
    'RUNTIME_PATHS',
    'resolveRunConfig',
    'resolveRunLoaded',
    'showRescue',
    'sourceOf',
    'TASK_STATUSES',
    'templateList',
    'writeTemplate',
  ],
  fleetAndBuildingBlocks: [
    'loadFleetEngine',
    'openFleet',
    'checkpointState',
    'FINAL_STATES',
    'safeRedisUrl',
    'runFleetJob',
    'allowHostName',
    'tokenFromFile',
    'createDemoWorkspace',
    'DEMO_OVERRIDES',
    'readWorkerSpec',
    'WORKER_SECRETS_ENV',
    'agentEnvBase',
    'buildBaseAgentEnv',
    'runGate',
    'commitAll',
    'runGit',
    'runGitRaw',
  ],
  sharedMechanisms: [
    'createRedactor',
    'redactDeep',
    'maskSecrets',
    'secretPaths',
    'secretValues',
    'followFile',
    'followJsonl',
    'MAX_JSON_DEPTH',
    'nestedDeeper',
    'poll',
    'readTextSince',
    'skippedNotice',
    'appendLine',
    'eventLineParser',
    'eventsFileOf',
    'readEventsSince',
    'workspaceLockHolder',
    'packageVersion',
    'RALPH_BIN',
    'RALPH_BIN_DIR',
    'unsupportedPlatform',
    'findExecutable',
    'shellCommand',
    'setDebugSink',
    'closestMatch',
    'renderHatGraph',
    'DEFAULT_HUMAN_ANSWER',
    'REDIS_URL',
  ],
  sandbox: [
    'accessOf',
    'describePolicy',
    'explainDenials',
    'probeSandbox',
    'sandboxPolicy',
    'sandboxSettings',
    'wrapCommand',
  ],
  errors: [
    'ConfigError',
    'ExitCode',
    'FileSystemError',
    'fileSystemError',
    'LockHeldError',
    'RALPH_ERROR_CODES',
    'RalphError',
    'UnfinishedRunError',
    'UsageError',
  ],
  config: [
    'configSchema',
    'INTERACTIVE_BACKEND_NAMES',
    'interactiveInvocation',
    'loadConfig',
    'parseSetOverride',
    'resolveBackend',
  ],
};

const INDEX = join(ROOT, 'src', 'index.ts');
const indexText = readFileSync(INDEX, 'utf8');

/** Every name src/index.ts exports (values and types), with the file that declares it. */
function exportedNames(): { name: string; file: string }[] {
  const found: { name: string; file: string }[] = [];
  for (const m of indexText.matchAll(/^export (?:type )?\{([^}]*)\} from '(\.\/[^']+)';/gm)) {
    const file = join(dirname(INDEX), m[2] as string);
    for (const spec of (m[1] as string).split(',')) {
      const name = spec.replace(/^\s*type\s+/, '').trim();
      if (name) found.push({ name, file });
    }
  }
  return found;
}

/** The doc comment right above the declaration of `name` in `text`, or undefined when there is none. */
function docCommentOf(text: string, name: string): string | undefined {
  const decl = new RegExp(
    `^export (?:declare )?(?:async )?(?:function\\*? |const |class |interface |type |enum )${name}\\b`,
    'm',
  ).exec(text);
  if (!decl) return undefined;
  const before = text.slice(0, decl.index).trimEnd();
  if (!before.endsWith('*/')) return undefined;
  const start = before.lastIndexOf('/**');
  return start === -1 ? undefined : before.slice(start);
}

describe('the public API (package root)', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toEqual(Object.values(RUNTIME_EXPORTS).flat().sort());
  });

  it('exports no internal: parsers, the supervisor, prompt assembly, the run log, decisions', () => {
    for (const internal of [
      'createStreamJsonParser',
      'createTextParser',
      'parseStreamJsonObject',
      'supervise',
      'assemblePrompt',
      'createRunLogSink',
      'judgeIteration',
      'limitReached',
    ])
      expect(api).not.toHaveProperty(internal);
  });

  it('gives every export, value or type, a JSDoc comment where it is declared', () => {
    const names = exportedNames();
    expect(names.length).toBeGreaterThan(60);
    const undocumented = names
      .filter(({ name, file }) => docCommentOf(readFileSync(file, 'utf8'), name) === undefined)
      .map(({ name, file }) => `${name} (${relative(ROOT, file)})`);
    expect(undocumented).toEqual([]);
  });

  it("gives readStatus's state as a read-only view, not the engine's state (npm run typecheck checks this)", () => {
    expectTypeOf<LoopState>().toEqualTypeOf<LoopStatusView>();
    expectTypeOf<LoopStatusView>().toHaveProperty('status');
    expectTypeOf<LoopStatusView>().not.toHaveProperty('pending_events');
    const change = (view: LoopStatusView) => {
      // @ts-expect-error the view cannot change state.json's fields
      view.status = 'stopped';
      // @ts-expect-error nor what they hold
      view.tokens.total = 0;
    };
    expect(typeof change).toBe('function');
  });

  it('documents every export in docs/reference/api.md', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'reference', 'api.md'), 'utf8');
    const missing = exportedNames()
      .map(({ name }) => name)
      .filter((name) => !new RegExp(`\\b${name}\\b`).test(doc));
    expect(missing).toEqual([]);
  });
});
