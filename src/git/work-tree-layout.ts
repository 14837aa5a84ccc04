import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { runGitRaw } from './run-git.ts';

/** Where git keeps what `status` reads, besides the work tree itself. */
export interface WorkTreeLayout {
  top: string;
  gitDir: string;
  commonDir: string;
  prefix: string;
}

/**
 * The layout of the work tree `root` is in, or undefined outside one (no repository, a bare one,
 * the git dir): one `rev-parse` answers "is this a repository?" and where its files are, so a run
 * starting in a repository asks git once.
 */
export async function readWorkTreeLayout(root: string): Promise<WorkTreeLayout | undefined> {
  if (!mayBeInRepository(root)) return undefined;
  const result = await runGitRaw(root, [
    'rev-parse',
    '--is-inside-work-tree',
    '--show-toplevel',
    '--absolute-git-dir',
    '--git-common-dir',
    '--show-prefix',
  ]);
  const [inside, top = '', gitDir = '', commonDir = '', prefix = ''] = result.stdout.split('\n');
  if (result.exitCode !== 0 || inside !== 'true') return undefined;
  return { top, gitDir, commonDir: resolve(root, commonDir), prefix };
}

/**
 * False when git could find no repository for `root`: no `.git` (directory or file) in it or above
 * it, and none of them a git directory itself (HEAD beside objects/). Git discovers repositories
 * only so (the variables that point it elsewhere are removed for every git call), so outside one
 * no git process is started, each a fork of Ralph's whole process. True means git must tell.
 */
export function mayBeInRepository(root: string): boolean {
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return true;
    if (existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects'))) return true;
    if (dirname(dir) === dir) return false;
  }
}
