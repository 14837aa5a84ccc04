import { RalphError } from '../errors.ts';
import { isExcludedPath } from './porcelain.ts';
import { gitFailure, runGit, runGitRaw } from './run-git.ts';
import { type ExcludeOptions, showPrefix, statusEntries } from './working-tree.ts';

/**
 * Pathspecs for "the whole repository except these" (`:/` is the top level; the excludes stay
 * relative to `root`); literal, so `*` in a name is not a glob.
 */
function allExcept(exclude: readonly string[]): string[] {
  const specs = [':/'];
  for (const raw of exclude) {
    const entry = raw.replace(/^\.\//, '');
    if (entry.length === 0) continue;
    // A trailing `*` is a name prefix (see isExcludedPath); everything else is matched literally.
    specs.push(entry.endsWith('*') ? `:(exclude,glob)${entry}` : `:(exclude,literal)${entry}`);
  }
  return specs;
}

/**
 * Stages every change except the excluded paths and commits it with `message` (any number of
 * lines). Returns the new commit, or null when there was nothing to commit. Works before the
 * first commit.
 */
export async function commitAll(
  root: string,
  message: string,
  { exclude }: ExcludeOptions,
): Promise<{ commit: string | null }> {
  if (message.trim().length === 0) {
    throw new RalphError('git_commit_message', 'refusing to commit with an empty message; pass a message');
  }
  await stageAll(root, { exclude });
  const staged = await runGitRaw(root, ['diff', '--cached', '--quiet']);
  if (staged.exitCode === 0) return { commit: null };
  if (staged.exitCode !== 1) throw gitFailure(root, ['diff', '--cached', '--quiet'], staged);
  await runGit(root, ['commit', '-q', '-F', '-'], { input: message });
  return { commit: (await runGit(root, ['rev-parse', 'HEAD'])).trim() };
}

/**
 * Stages every change of the repository (untracked files included, ignored ones not) except the
 * excluded paths, which are relative to `root`.
 */
export async function stageAll(root: string, { exclude }: ExcludeOptions): Promise<void> {
  // Only exclusions that match a change: git refuses a pathspec naming an ignored path (a
  // .gitignore'd .ralph/ is common), even in an exclusion.
  const [changed, prefix] = await Promise.all([statusEntries(root), showPrefix(root)]);
  const top = prefix.replace(/\n$/, '');
  const relevant = exclude.filter((e) =>
    changed.some((c) => isExcludedPath(c.path, [`${top}${e.replace(/^\.\//, '')}`])),
  );
  await runGit(root, ['add', '-A', '--', ...allExcept(relevant)]);
}

/**
 * The author and committer identities a commit made now would carry (`git var`, with the
 * environment's and config's overrides); the date that follows each is cut off.
 */
export async function commitIdentities(root: string): Promise<{ author: string; committer: string }> {
  const [author, committer] = await Promise.all(
    ['GIT_AUTHOR_IDENT', 'GIT_COMMITTER_IDENT'].map(async (name) =>
      (await runGit(root, ['var', name])).trim().replace(/ \d+ [+-]\d{4}$/, ''),
    ),
  );
  return { author: author ?? '', committer: committer ?? '' };
}
