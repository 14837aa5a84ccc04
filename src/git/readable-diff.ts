import { gitFailure, type RunGitOptions, runGitRaw } from './run-git.ts';

/** Characters of one file's diff shown before it is cut (the note says how much was left out). */
export const MAX_FILE_DIFF_CHARS = 20_000;

/** Splits a diff before each `diff --git` line: anything before the first (a `--stat`) is its own part. */
function fileSections(diff: string): string[] {
  return diff.split(/^(?=diff --git )/m).filter((s) => s.length > 0);
}

/** The header lines of a file's section: up to its first hunk or its `---` line. */
function header(section: string): string {
  const lines = section.split('\n');
  const end = lines.findIndex((l, i) => i > 0 && (l.startsWith('--- ') || l.startsWith('@@')));
  return lines.slice(0, end < 0 ? lines.length : end).join('\n');
}

/**
 * The diff with each file shown as text, except a file whose diff holds NUL bytes (really binary:
 * Ralph's own check, not an attribute), named without its bytes; a file's diff longer than
 * `maxFileChars` is cut at a line, with a note saying how much was left out.
 */
export function boundDiff(diff: string, maxFileChars = MAX_FILE_DIFF_CHARS): string {
  return fileSections(diff)
    .map((section) => {
      if (!section.startsWith('diff --git ')) return section;
      if (section.includes('\0'))
        return `${header(section).replaceAll('\0', '')}\n(binary: it holds NUL bytes; not shown)\n`;
      if (section.length <= maxFileChars) return section;
      const at = section.lastIndexOf('\n', maxFileChars);
      const kept = section.slice(0, at > 0 ? at + 1 : maxFileChars);
      return `${kept}… (${section.length - kept.length} more characters of this file's diff cut; read the file)\n`;
    })
    .join('');
}

/**
 * `git diff <args>` for a person or a model to read: every file as text whatever `.gitattributes`
 * says (`--text`: the agent can write `* -diff` there to show "Binary files differ" instead of its
 * change; textconv and external diffs are already off in the runner), then bounded per file.
 * Throws a `RalphError` naming the command when git fails.
 */
export async function readableDiff(
  root: string,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<string> {
  const full = ['diff', '--no-color', '--text', ...args];
  const r = await runGitRaw(root, full, options);
  if (r.exitCode !== 0) throw gitFailure(root, full, r);
  return boundDiff(r.stdout);
}
