import { readableDiff } from '../git/readable-diff.ts';
import { runGit, runGitRaw } from '../git/run-git.ts';

const MAX_FILES = 8;
const MAX_DIFF_CHARS = 4000;

/** The files a merge of `branch` into `target` would leave conflicted (none: it merges cleanly). */
export async function conflictedFiles(dir: string, target: string, branch: string): Promise<string[]> {
  const r = await runGitRaw(dir, [
    'merge-tree',
    '--write-tree',
    '--name-only',
    '--no-messages',
    target,
    branch,
  ]);
  if (r.exitCode === 0) return [];
  const lines = r.stdout.split('\n').slice(1);
  const files: string[] = [];
  for (const line of lines) {
    if (line.trim() === '') break;
    files.push(line);
  }
  return files;
}

function bounded(text: string): string {
  return text.length <= MAX_DIFF_CHARS
    ? text
    : `${text.slice(0, MAX_DIFF_CHARS)}\n… (cut: run the diff yourself)`;
}

/**
 * What the resolving agent needs: the conflicted files, and for each what the target changed and
 * what this branch changed since they parted.
 */
export async function describeConflict(
  dir: string,
  target: string,
  branch: string,
  files: readonly string[],
): Promise<string> {
  const base = (await runGit(dir, ['merge-base', target, branch])).trim();
  const parts = [`Conflicted files: ${files.map((f) => `\`${f}\``).join(', ')}`];
  for (const file of files.slice(0, MAX_FILES)) {
    const theirs = await readableDiff(dir, [base, target, '--', file]);
    const ours = await readableDiff(dir, [base, branch, '--', file]);
    parts.push(
      '',
      `### ${file}`,
      '',
      `What \`${target}\` changed:`,
      '```diff',
      bounded(theirs.trimEnd()) || '(deleted or unchanged)',
      '```',
      '',
      'What this branch changed:',
      '```diff',
      bounded(ours.trimEnd()) || '(deleted or unchanged)',
      '```',
    );
  }
  if (files.length > MAX_FILES) parts.push('', `… and ${files.length - MAX_FILES} more file(s).`);
  return parts.join('\n');
}

/** Files in the worktree that still hold conflict markers. */
export async function filesWithMarkers(dir: string, files: readonly string[]): Promise<string[]> {
  if (files.length === 0) return [];
  const r = await runGitRaw(dir, ['grep', '-l', '-E', '^(<<<<<<<|>>>>>>>)( |$)', '--', ...files]);
  return r.stdout.split('\n').filter((l) => l.trim() !== '');
}
