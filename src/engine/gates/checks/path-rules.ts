import { join } from 'node:path';
import { pathMatcher } from '../../../config/path-patterns.ts';
import { sha256Of, statCached } from '../../../state/io/stat-cache.ts';
import { RALPH_DIR } from '../../../state/paths.ts';
import { MAX_WALK, walkFiles, walkRoots } from './bounded-walk.ts';

/** `rules` from ralph.yml: path patterns (docs/concepts/path-patterns.md). */
export interface PathRules {
  allow?: readonly string[] | undefined;
  deny?: readonly string[] | undefined;
  approve?: readonly string[] | undefined;
}

/** A changed file a rule refuses: inside `deny`, or outside `allow`. */
export interface RuleViolation {
  file: string;
  rule: 'deny' | 'allow';
}

/** What the rules say about an iteration's changed files. */
export interface RulesVerdict {
  violations: RuleViolation[];
  /** Files inside `approve` (and not violating): a human decides. */
  needsApproval: string[];
}

/**
 * Checks changed files (workspace-relative `/` paths, deleted ones included) against the rules
 * (pure): `deny` first, then `allow` when it is set, then `approve`.
 */
export function checkPathRules(rules: PathRules, files: readonly string[]): RulesVerdict {
  const deny = pathMatcher(rules.deny ?? []);
  const allow = rules.allow === undefined ? undefined : pathMatcher(rules.allow);
  const approve = pathMatcher(rules.approve ?? []);
  const violations: RuleViolation[] = [];
  const needsApproval: string[] = [];
  for (const file of [...new Set(files)].sort()) {
    if (deny(file)) violations.push({ file, rule: 'deny' });
    else if (allow && !allow(file)) violations.push({ file, rule: 'allow' });
    else if (approve(file)) needsApproval.push(file);
  }
  return { violations, needsApproval };
}

/** `a.txt (rules.deny), b.txt (outside rules.allow)`. */
export function describeViolations(violations: readonly RuleViolation[]): string {
  return violations
    .map((v) => `${v.file} (${v.rule === 'deny' ? 'inside rules.deny' : 'outside rules.allow'})`)
    .join(', ');
}

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
