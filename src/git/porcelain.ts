/** One changed path in the working tree or index. */
export interface WorkingTreeChange {
  /** Path relative to the repository's top level (the new path of a rename or copy). */
  path: string;
  /** `XY` index/worktree status as git prints it (`.M`, `A.`, `R.`, `UU`, …); `??` when untracked. */
  status: string;
  /** Source path of a rename or copy. */
  from?: string;
}

// Space-separated fields before the path, per entry kind (git-status(1), "Porcelain Format Version 2").
const FIELDS_BEFORE_PATH: Record<string, number> = { '1': 8, '2': 9, u: 10 };

/** Splits `token` after its first `count` space-separated fields; the rest (the path) may hold spaces. */
function splitFields(token: string, count: number): { fields: string[]; rest: string } | undefined {
  const fields: string[] = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    const space = token.indexOf(' ', start);
    if (space < 0) return undefined;
    fields.push(token.slice(start, space));
    start = space + 1;
  }
  return { fields, rest: token.slice(start) };
}

/**
 * Parses `git status --porcelain=v2 -z` output. Ignored (`!`) entries and `#` headers are
 * dropped; malformed entries are skipped, so any input parses without throwing. A rename or copy
 * gives two entries, its source and its destination (with `from`), both with its status: every
 * consumer judging changes by path (rules, protection, progress) must see the path it left.
 */
export function parsePorcelainV2(text: string): WorkingTreeChange[] {
  const tokens = text.split('\0');
  const changes: WorkingTreeChange[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const kind = token.slice(0, 2);
    if (kind === '? ') {
      if (token.length > 2) changes.push({ path: token.slice(2), status: '??' });
      continue;
    }
    const count = kind[1] === ' ' ? FIELDS_BEFORE_PATH[kind[0]!] : undefined;
    if (count === undefined) continue;
    const split = splitFields(token, count);
    // A rename/copy entry is followed by its source path as the next NUL-separated token.
    const from = kind[0] === '2' ? tokens[++i] : undefined;
    if (!split || split.rest.length === 0) continue;
    const status = split.fields[1] ?? '';
    if (from === undefined) changes.push({ path: split.rest, status });
    else {
      if (from.length > 0) changes.push({ path: from, status });
      changes.push({ path: split.rest, status, from });
    }
  }
  return changes;
}

/**
 * True when `path` is one of `exclude` or lies under one: `a/b` excludes `a/b` and `a/b/…`,
 * `a/` excludes everything under `a`, `a/b*` any path starting with `a/b`. Both are relative to the repository's top level.
 */
export function isExcludedPath(path: string, exclude: readonly string[]): boolean {
  for (const raw of exclude) {
    const entry = raw.replace(/^\.\//, '');
    if (entry.length === 0) continue;
    // `prefix*`: any path starting with the prefix (Ralph's `.ralph/events-*.jsonl` logs).
    if (entry.endsWith('*')) {
      if (path.startsWith(entry.slice(0, -1))) return true;
      continue;
    }
    const dir = entry.endsWith('/') ? entry : `${entry}/`;
    if (path === entry || path === dir.slice(0, -1) || path.startsWith(dir)) return true;
  }
  return false;
}
