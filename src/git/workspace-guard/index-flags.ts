import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readOptional } from '../../state/io/read-optional.ts';
import { runGit } from '../run-git.ts';
import type { WorkTreeLayout } from '../work-tree-layout.ts';
import { indexHasFlags } from './index-file.ts';

/**
 * The index bits that make git stop looking at a tracked file in the work tree: `skip-worktree`
 * (sparse checkouts set it; `git update-index --skip-worktree`) and `assume-unchanged`
 * (`--assume-unchanged`). A file behind either is edited without `git status`, `git add -A` or a
 * diff ever showing it.
 */
export interface IndexFlags {
  skipWorktree: string[];
  assumeUnchanged: string[];
}

/**
 * The flagged entries in `git ls-files -v -z` output (paths from where it ran): tag `S` is
 * skip-worktree, a lowercase tag assume-unchanged, `s` both. Sorted, each path once.
 */
export function parseIndexFlags(lsFilesV: string): IndexFlags {
  const skip = new Set<string>();
  const assume = new Set<string>();
  for (const entry of lsFilesV.split('\0')) {
    // "<tag> <path>": the tag is one letter, the path anything after the space.
    if (entry.length < 3 || entry[1] !== ' ') continue;
    const tag = entry[0] ?? '';
    const path = entry.slice(2);
    if (tag === 'S' || tag === 's') skip.add(path);
    if (tag !== tag.toUpperCase()) assume.add(path);
  }
  return { skipWorktree: [...skip].sort(), assumeUnchanged: [...assume].sort() };
}

/** The flags in `now` that `start` did not have (a bit set before the run, as a sparse checkout's, stays). */
export function flagsGained(start: IndexFlags, now: IndexFlags): IndexFlags {
  const gained = (before: readonly string[], after: readonly string[]) => {
    const had = new Set(before);
    return after.filter((p) => !had.has(p));
  };
  return {
    skipWorktree: gained(start.skipWorktree, now.skipWorktree),
    assumeUnchanged: gained(start.assumeUnchanged, now.assumeUnchanged),
  };
}

/** Every path in `flags`, sorted, each once. */
export function flaggedPaths(flags: IndexFlags): string[] {
  return [...new Set([...flags.skipWorktree, ...flags.assumeUnchanged])].sort();
}

/** The flagged entries of the index of the work tree whose top level is `top` (one git process). */
export async function readIndexFlags(top: string): Promise<IndexFlags> {
  return parseIndexFlags(await runGit(top, ['ls-files', '-v', '-z']));
}

/**
 * The flagged entries now: when the index file shows none (most repositories, most turns), without
 * a git process; else, or when the reader cannot tell (a SHA-256 repository too), from git.
 */
export async function currentIndexFlags(layout: WorkTreeLayout): Promise<IndexFlags> {
  const config = readOptional(join(layout.commonDir, 'config'), 'absent') ?? '';
  if (!/objectformat\s*=\s*sha256/i.test(config)) {
    let flagged: boolean | undefined;
    try {
      flagged = indexHasFlags(readFileSync(join(layout.gitDir, 'index')));
    } catch (error) {
      // No index yet (nothing ever staged): no entry, no flag.
      flagged = (error as NodeJS.ErrnoException).code === 'ENOENT' ? false : undefined;
    }
    if (flagged === false) return { skipWorktree: [], assumeUnchanged: [] };
  }
  return readIndexFlags(layout.top);
}

/**
 * Clears those bits (paths from `top`): git then compares those files with the work tree again.
 * One call per kind: `update-index` applies only the first of `--no-assume-unchanged` and
 * `--no-skip-worktree` when given both.
 */
export async function clearIndexFlags(top: string, flags: IndexFlags): Promise<void> {
  const calls: [string, string[]][] = [
    ['--no-assume-unchanged', flags.assumeUnchanged],
    ['--no-skip-worktree', flags.skipWorktree],
  ];
  for (const [flag, paths] of calls)
    if (paths.length > 0)
      await runGit(top, ['update-index', flag, '-z', '--stdin'], { input: `${paths.join('\0')}\0` });
}
