import { join } from 'node:path';
import { statCached } from '../state/io/stat-cache.ts';
import { RALPH_DIR } from '../state/paths.ts';
import { MAX_WALK, walkFiles, walkRoots } from './bounded-walk.ts';
import type { PathRules } from './path-rules.ts';
import { sha256Of } from './protected-files.ts';

/** What the files under the rules' directories held: workspace-relative path → sha256. */
export type RulesSnapshot = Record<string, string>;

/**
 * Every pattern of the rules, whose base directories are walked: a file `deny` or `approve` can
 * select lives under one, and so does a file under an `allow` base that `allow` leaves out.
 */
export function rulesPatterns(rules: PathRules): string[] {
  return [...(rules.deny ?? []), ...(rules.approve ?? []), ...(rules.allow ?? [])];
}

// Sized for a whole walk: the shared hash cache (10,000 paths) would start again every iteration.
const hashCached = statCached(sha256Of, MAX_WALK);

/**
 * The content of every file under the rules' base directories — git-ignored, index-hidden and
 * untracked alike, as they are on disk — minus Ralph's own directory (never the project's code).
 * Git is not asked: what the agent does to the index, refs or excludes cannot hide a file from it.
 * Throws past the walk's bound (bounded-walk.ts).
 */
export function rulesSnapshot(workspace: string, rules: PathRules): RulesSnapshot {
  const patterns = rulesPatterns(rules);
  const out: RulesSnapshot = {};
  for (const rel of walkFiles(workspace, walkRoots(patterns), patterns, 'rules')) {
    if (rel.startsWith(`${RALPH_DIR}/`)) continue;
    try {
      out[rel] = hashCached(join(workspace, rel));
    } catch {
      // Unreadable (no permission, gone meanwhile): its presence still counts.
      out[rel] = 'unreadable';
    }
  }
  return out;
}
