import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { RalphError } from '../errors.ts';
import { trace, tracing } from '../process/debug-trace.ts';
import { statKey } from '../state/io/stat-cache.ts';
import { readGitHead } from './head.ts';
import { isExcludedPath, type WorkingTreeChange } from './porcelain.ts';
import { runGit } from './run-git.ts';
import { type TreeWatch, watchTree } from './tree-watch.ts';
import { readWorkTreeLayout, type WorkTreeLayout } from './work-tree-layout.ts';
import { excludedFromTop, statusEntries, withoutExcluded } from './working-tree.ts';

/** Uncommitted changes minus the excluded paths (a `git status`, fresh or cached). */
export type PendingChanges = () => Promise<WorkingTreeChange[]>;

/** `git status` of a repository, run again only when something it depends on changed. */
export interface WorkingTreeCache {
  /** Uncommitted changes minus the excluded paths, exactly as `workingTreeChanges` returns them. */
  changes(): Promise<WorkingTreeChange[]>;
  /** `git status` runs so far (the rest were answered from the cache): for tests and the bench. */
  readonly statusRuns: number;
  /**
   * With `watchLater`: lists what the watch needs (the ignored directories, the config) and starts
   * it, in the background; calls before it are plain `git status` runs. Once is enough.
   */
  watch(): void;
  close(): void;
}

export interface WorkingTreeCacheOptions {
  /**
   * Set the watch up only when `watch()` is called: until then `changes()` runs `git status` alone.
   * A run starts its first agent two git processes sooner (each fork of Ralph's process costs a few
   * ms) and has the watch set up while the agent runs; that first answer is not cached anyway.
   */
  watchLater?: boolean | undefined;
}

/**
 * Directories git ignores as a whole (`node_modules/`, `dist/` …), relative to the top, as one
 * sorted key: they are not watched, since nothing in them shows in `git status`.
 */
async function ignoredDirs(top: string): Promise<string[]> {
  const out = await runGit(top, [
    'ls-files',
    '--others',
    '--ignored',
    '--exclude-standard',
    '--directory',
    '-z',
  ]);
  return out
    .split('\0')
    .filter((p) => p.endsWith('/'))
    .map((p) => p.slice(0, -1))
    .sort();
}

/** Beyond this many directories the work tree is not watched: every call runs `git status`. */
const MAX_WATCHED_DIRS = 4000;

/** The config files git reads (includes too) and the ignore/attributes files they name. */
async function configFiles(root: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out = await runGit(root, ['config', '--list', '--show-origin', '-z']);
  const files = new Set<string>();
  const xdg = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  let excludes = join(xdg, 'git', 'ignore');
  let attributes = join(xdg, 'git', 'attributes');
  // Every file git may read, read or not now: creating one changes the configuration.
  for (const f of ['/etc/gitconfig', join(homedir(), '.gitconfig'), join(xdg, 'git', 'config')]) files.add(f);
  const tokens = out.split('\0');
  for (let i = 0; i + 1 < tokens.length; i += 2) {
    const origin = tokens[i] ?? '';
    const [key = '', value = ''] = (tokens[i + 1] ?? '').split('\n');
    if (origin.startsWith('file:')) files.add(resolve(root, origin.slice(5)));
    const path = () => (value.startsWith('~/') ? join(homedir(), value.slice(2)) : resolve(root, value));
    if (key === 'core.excludesfile') excludes = path();
    if (key === 'core.attributesfile') attributes = path();
  }
  return [...files, excludes, attributes];
}

/**
 * A cache of `git status` for a loop: the work tree is watched (every directory but the git dir
 * and the excluded paths, and the directories git ignores as a whole), and `git status` runs again
 * only when a watched path changed, or the
 * index, HEAD, the configuration or an ignore/attributes file did. A repository with submodules,
 * or too many directories to watch, gets a plain `git status` every time. Not seen: a file changed
 * only through a shared memory map (inotify does not report those writes). `layout`, when the
 * caller has read it already (`readWorkTreeLayout`), saves asking git again.
 */
export function createWorkingTreeCache(
  root: string,
  exclude: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  layout?: WorkTreeLayout,
  options: WorkingTreeCacheOptions = {},
): WorkingTreeCache {
  let tree: TreeWatch | undefined;
  let watching = true;
  let config: { key: string; files: string[] } | undefined;
  let last: { changes: number; key: string; entries: WorkingTreeChange[] } | undefined;
  let closed = false;
  let statusRuns = 0;
  let incompleteCalls = 0;
  /** The ignored directories the current watch leaves out. */
  let unwatched = '';
  const status = () => {
    statusRuns++;
    return statusEntries(root);
  };

  const gitFiles = (l: WorkTreeLayout) => [
    join(l.gitDir, 'index'),
    join(l.gitDir, 'HEAD'),
    join(l.gitDir, 'config.worktree'),
    join(l.gitDir, 'info', 'sparse-checkout'),
    join(l.commonDir, 'packed-refs'),
    join(l.commonDir, 'info', 'exclude'),
    join(l.commonDir, 'info', 'attributes'),
    join(l.commonDir, 'modules'),
  ];

  /** Everything outside the watched tree that `git status` depends on. */
  const stateKey = async (l: WorkTreeLayout): Promise<string> => {
    const head = readGitHead(root);
    const configKey = () => `${head.branch}|${config?.files.map(statKey).join(',')}`;
    // The config is listed again when a config file changed (or the branch: `includeIf onbranch:`).
    if (config === undefined || config.key !== configKey()) {
      config = { key: '', files: await configFiles(root, env) };
      config.key = configKey();
    }
    return [head.commit, config.key, ...gitFiles(l).map(statKey)].join('|');
  };

  const startWatch = async (l: WorkTreeLayout) => {
    // Submodules keep their HEADs under the git dir, outside the watched tree.
    if (existsSync(join(l.top, '.gitmodules')) || existsSync(join(l.commonDir, 'modules'))) {
      watching = false;
      return;
    }
    const gitDirInTree = relative(l.top, l.gitDir);
    const inTree = gitDirInTree !== '' && !gitDirInTree.startsWith('..') && !isAbsolute(gitDirInTree);
    const fromTop = excludedFromTop(l.prefix, exclude);
    const ignored = await ignoredDirs(l.top);
    if (closed) return;
    unwatched = ignored.join('\0');
    const skipped = new Set(ignored);
    tree = watchTree(l.top, {
      maxDirs: MAX_WATCHED_DIRS,
      skip: (rel) =>
        rel === '.git' ||
        (inTree && rel === gitDirInTree) ||
        skipped.has(rel) ||
        isExcludedPath(rel, fromTop),
    });
  };

  /** The watch being set up (the ignored directories listed beside the config): one at a time. */
  let setUp: Promise<unknown> | undefined;
  const setUpWatch = (l: WorkTreeLayout) => {
    if (setUp === undefined && watching && tree === undefined && !closed)
      setUp = Promise.all([startWatch(l), stateKey(l)]).finally(() => {
        setUp = undefined;
      });
    return setUp;
  };
  let wanted = options.watchLater !== true;

  // The layout, and (unless watchLater) the watch and the config, asked as the cache is made, so the
  // run's first `changes()` (its start checks) finds them ready. A failure surfaces there.
  const ready = (async () => {
    const l = layout ?? (await readWorkTreeLayout(root));
    if (!l)
      throw new RalphError('git_failed', `${root} is not in a git work tree: its changes cannot be listed`);
    if (wanted) await setUpWatch(l);
    return l;
  })();
  ready.catch(() => undefined);

  return {
    async changes() {
      const l = await ready;
      if (!wanted) return withoutExcluded(await status(), l.prefix, exclude);
      if (watching && tree === undefined && !closed) await setUpWatch(l);
      if (closed || !watching || !tree) return withoutExcluded(await status(), l.prefix, exclude);
      if (!tree.complete) {
        // Given up (too many directories: an ignored one, like node_modules, made after the watch
        // began?): now and then, see whether leaving out what git ignores now makes it fit.
        const entries = await status();
        if (++incompleteCalls % 10 === 1 && (await ignoredDirs(l.top)).join('\0') !== unwatched) {
          tree.close();
          tree = undefined;
          last = undefined;
        }
        return withoutExcluded(entries, l.prefix, exclude);
      }
      // Every change made before this call is queued by the kernel already: one full turn of the
      // event loop (an immediate scheduled from an immediate runs after the next I/O poll)
      // delivers it before the counts are compared.
      await new Promise((done) => setImmediate(() => setImmediate(done)));
      const key = await stateKey(l);
      const hit = last !== undefined && last.changes === tree.changes && last.key === key && tree.complete;
      if (tracing()) trace({ kind: 'cache', name: 'git status', hit, of: root });
      if (hit && last !== undefined) return withoutExcluded(last.entries, l.prefix, exclude);
      const changes = tree.changes;
      // A change may have been to what git ignores (a .gitignore edited): the watch must leave out
      // exactly the directories git ignores, so it is made again when they differ. Both read the
      // tree as it is now, side by side: a change after `changes` was taken shows in the next call.
      const [entries, ignored] = await Promise.all([status(), ignoredDirs(l.top)]);
      if (ignored.join('\0') !== unwatched) {
        tree.close();
        tree = undefined;
        last = undefined;
      } else last = { changes, key, entries };
      return withoutExcluded(entries, l.prefix, exclude);
    },
    get statusRuns() {
      return statusRuns;
    },
    watch() {
      if (wanted) return;
      wanted = true;
      ready.then(setUpWatch).catch(() => undefined);
    },
    close() {
      closed = true;
      tree?.close();
    },
  };
}
