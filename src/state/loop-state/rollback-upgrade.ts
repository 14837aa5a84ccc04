// Before one rollback state, a run kept the workspace's in `rollback` ({ iteration, ref, to, why,
// rescued }) and the repositories' in `repos_rollback` ({ iteration, ref, why, repos, done }); a run
// an older Ralph left mid-rollback must still be finished on --resume.

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A parsed state.json with an older Ralph's `rollback` and `repos_rollback` turned into the one
 * `rollback` (pure): the workspace first, then each repository not yet done. Anything else is
 * returned as it is, for the schema to check.
 */
export function upgradeRollback(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const old = isObject(raw.rollback) && !('trees' in raw.rollback) ? raw.rollback : undefined;
  if (!old && !('repos_rollback' in raw)) return raw;
  const { repos_rollback: repos, ...rest } = raw;
  const parts: Record<string, unknown>[] = [];
  if (old) parts.push({ iteration: old.iteration, ref: old.ref, trees: [{ ...pick(old), repo: null }] });
  else if (isObject(rest.rollback)) parts.push(rest.rollback);
  if (isObject(repos)) {
    const done = Array.isArray(repos.done) ? repos.done : [];
    const named = Array.isArray(repos.repos) ? repos.repos : [];
    const trees = named
      .filter((r) => !(isObject(r) && done.includes(r.name)))
      .map((r) => (isObject(r) ? { repo: r.name, to: r.to, why: repos.why, rescued: false } : r));
    parts.push({ iteration: repos.iteration, ref: repos.ref, trees });
  }
  const trees = parts.flatMap((p) => (Array.isArray(p.trees) ? p.trees : []));
  const first = parts[0];
  return { ...rest, rollback: first && trees.length > 0 ? { ...first, trees } : null };
}

/** The old workspace rollback's own part: where it returns, why, and whether the ref holds it. */
function pick(old: Record<string, unknown>): Record<string, unknown> {
  return { to: old.to, why: old.why, rescued: old.rescued };
}
