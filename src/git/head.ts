import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Branch and commit of a workspace, read from .git files directly (no process spawn per iteration). */
export interface GitHead {
  branch: string | undefined;
  commit: string | undefined;
}

function gitDir(root: string): string | undefined {
  const dotGit = join(root, '.git');
  try {
    // Outside a repository this runs a few times per iteration: no exception for a missing .git.
    const st = statSync(dotGit, { throwIfNoEntry: false });
    if (st === undefined) return undefined;
    if (st.isDirectory()) return dotGit;
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
    return m ? resolve(root, m[1]!.trim()) : undefined;
  } catch {
    return undefined;
  }
}

function readRef(dir: string, commonDir: string, ref: string): string | undefined {
  for (const base of [dir, commonDir]) {
    try {
      return readFileSync(join(base, ref), 'utf8').trim();
    } catch {}
  }
  try {
    const packed = readFileSync(join(commonDir, 'packed-refs'), 'utf8');
    for (const line of packed.split('\n')) {
      const [sha, name] = line.split(' ');
      if (name === ref) return sha;
    }
  } catch {}
  return undefined;
}

/** Reads HEAD; returns undefined fields outside a git repository or before the first commit. */
export function readGitHead(root: string): GitHead {
  const dir = gitDir(root);
  if (!dir) return { branch: undefined, commit: undefined };
  let commonDir = dir;
  try {
    commonDir = resolve(dir, readFileSync(join(dir, 'commondir'), 'utf8').trim());
  } catch {}
  let head: string;
  try {
    head = readFileSync(join(dir, 'HEAD'), 'utf8').trim();
  } catch {
    return { branch: undefined, commit: undefined };
  }
  const sym = /^ref:\s*(.+)$/.exec(head);
  if (!sym) return { branch: '(detached)', commit: head };
  const ref = sym[1]!;
  return { branch: ref.replace(/^refs\/heads\//, ''), commit: readRef(dir, commonDir, ref) };
}
