import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { RalphConfig } from '../config/schema.ts';

/** What Ralph protects by default: its validate hook and the usual CI configuration. */
export const DEFAULT_PROTECTED = [
  '.ralph/validate.sh',
  '.github/workflows/**',
  '.gitlab-ci.yml',
  '.circleci/**',
  '.ci/**',
] as const;

/** Files bigger than this are protected by their hash only (no copy to run gates from). */
const MAX_COPY_BYTES = 4 * 1024 * 1024;
/** A protected glob that would walk more than this many files is cut there. */
const MAX_WALK = 10_000;

/** A glob (`*` within a name, `**` across directories) as a regular expression on `/` paths. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The directory a glob's matches all live under (its part before the first wildcard). */
function staticPrefix(glob: string): string {
  const parts = glob.split('/');
  const fixed: string[] = [];
  for (const p of parts) {
    if (/[*?]/.test(p)) break;
    fixed.push(p);
  }
  return fixed.join('/');
}

/**
 * The globs a run protects: `gates.protect`, else the defaults plus the files named in the test
 * and validate commands (e.g. `sh scripts/check.sh` protects scripts/check.sh).
 */
export function protectedGlobs(config: RalphConfig, workspace: string): string[] {
  if (config.gates.protect !== undefined) return [...config.gates.protect];
  const commands = [
    config.gates.tests?.command,
    typeof config.gates.validate === 'string' ? config.gates.validate : undefined,
  ];
  const named = commands
    .flatMap((c) => (c ?? '').split(/\s+/))
    .map((t) => t.replace(/^\.\//, ''))
    .filter(
      (t) =>
        t &&
        !t.startsWith('-') &&
        !t.includes('..') &&
        existsSync(join(workspace, t)) &&
        statSync(join(workspace, t)).isFile(),
    );
  return [...new Set([...DEFAULT_PROTECTED, ...named])];
}

/** Every existing file matching the globs, workspace-relative with `/`. */
export function matchProtected(workspace: string, globs: readonly string[]): string[] {
  const found = new Set<string>();
  let walked = 0;
  for (const glob of globs) {
    const re = globToRegExp(glob);
    const prefix = staticPrefix(glob);
    const start = join(workspace, prefix);
    if (!existsSync(start)) continue;
    const visit = (abs: string) => {
      if (walked++ > MAX_WALK) return;
      const st = statSync(abs, { throwIfNoEntry: false });
      if (!st) return;
      const rel = relative(workspace, abs).split(sep).join('/');
      if (st.isDirectory()) {
        if (rel === '.git' || rel.startsWith('.git/') || rel.endsWith('node_modules')) return;
        for (const name of readdirSync(abs)) visit(join(abs, name));
      } else if (st.isFile() && re.test(rel)) found.add(rel);
    };
    visit(start);
  }
  return [...found].sort();
}

const known = new Map<string, { key: string; hash: string }>();
/** A file changed this recently may change again within the same timestamp: always hashed (as git does). */
const RACY_NS = 2_000_000_000n;

/**
 * The file's sha256, or null when it cannot be read. A file whose identity, size and change times
 * are as when it was last hashed is not read again (every iteration checks every protected file).
 */
export function hashFile(path: string): string | null {
  try {
    const st = statSync(path, { bigint: true });
    const key = `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    const hit = known.get(path);
    if (hit?.key === key) return hit.hash;
    const hash = createHash('sha256').update(readFileSync(path)).digest('hex');
    const racy = BigInt(Date.now()) * 1_000_000n - st.ctimeNs < RACY_NS;
    if (!racy) {
      if (known.size > 10_000) known.clear();
      known.set(path, { key, hash });
    }
    return hash;
  } catch {
    return null;
  }
}

/** The protected files' hashes now (path → sha256). */
export function snapshot(workspace: string, globs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of matchProtected(workspace, globs)) {
    const h = hashFile(join(workspace, rel));
    if (h) out[rel] = h;
  }
  return out;
}

/** Paths whose content differs from the baseline: changed, deleted, or new files that match. */
export function tamperedPaths(baseline: Record<string, string>, now: Record<string, string>): string[] {
  const paths = new Set([...Object.keys(baseline), ...Object.keys(now)]);
  return [...paths].filter((p) => baseline[p] !== now[p]).sort();
}

/** Keeps a copy of each protected file (under `store`), so gates can run from the protected content. */
export function keepCopies(workspace: string, store: string, baseline: Record<string, string>): void {
  for (const [rel, hash] of Object.entries(baseline)) {
    const copy = join(store, hash);
    if (existsSync(copy)) continue;
    const abs = join(workspace, rel);
    if (statSync(abs).size > MAX_COPY_BYTES) continue;
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, readFileSync(abs));
  }
}
