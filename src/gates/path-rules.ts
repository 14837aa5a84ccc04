import { pathMatcher } from '../config/path-patterns.ts';

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
