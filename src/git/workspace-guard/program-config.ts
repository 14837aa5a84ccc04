import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { RalphError } from '../../errors.ts';
import { hashFile } from '../../state/io/stat-cache.ts';
import { runGit, stderrTail } from '../run-git.ts';
import type { WorkTreeLayout } from '../work-tree-layout.ts';

/**
 * Keys of the repository's own config that make git run a program, send Ralph's push elsewhere, or
 * redirect which tree Ralph's own git calls read and commit, which the command-line hardening of
 * run-git.ts does not switch off because real setups rely on them. The agent can write `.git/config`: a run takes these as they
 * were at its start, and an iteration that adds, changes or removes one is refused. Git lowercases
 * section and variable names (not subsections), so each pattern ignores case.
 */
export const PROGRAM_CONFIG_KEYS: readonly { pattern: RegExp; what: string }[] = [
  // git add/status/reset/checkout pipe file contents through them (git-crypt, Git LFS).
  { pattern: /^filter\..+\.(clean|smudge|process)$/i, what: 'a clean/smudge filter' },
  // Which files get a filter: another attributes file could take git-crypt's off the secrets.
  { pattern: /^core\.attributesfile$/i, what: 'the attributes file that selects filters' },
  // Run on every conflicting file of the parallel merges, rebases and `ralph rescue apply`.
  { pattern: /^merge\..+\.driver$/i, what: 'a merge driver' },
  // Run to sign Ralph's commits when signing is on.
  { pattern: /^gpg\.([^.]+\.)?program$/i, what: 'a signing program' },
  { pattern: /^gpg\.ssh\.defaultkeycommand$/i, what: 'a signing key command' },
  // Run on Ralph's push and fetch.
  { pattern: /^core\.(sshcommand|askpass|gitproxy)$/i, what: 'a transport program' },
  { pattern: /^credential\.(.+\.)?helper$/i, what: 'a credential helper' },
  // Where the push goes and which program the other end runs (a push elsewhere takes the code along).
  { pattern: /^remote\..+\.(url|pushurl|receivepack|uploadpack|vcs)$/i, what: 'a remote' },
  { pattern: /^url\..+\.(insteadof|pushinsteadof)$/i, what: 'a remote URL rewrite' },
  // `protocol.ext.allow=always` lets a remote URL be a command (`ext::sh -c …`).
  { pattern: /^protocol\.(.+\.)?allow$/i, what: 'a transport protocol' },
  // Run by `git commit --trailer`.
  { pattern: /^trailer\..+\.(command|cmd)$/i, what: 'a trailer command' },
  // Another work tree than the workspace (status/add/commit would read a shadow copy the gates never
  // saw), no work tree at all, or a sparse checkout whose skipped files `git add -A` leaves as staged.
  { pattern: /^core\.(worktree|bare)$/i, what: 'the work tree git reads' },
  { pattern: /^core\.sparsecheckout(cone)?$/i, what: 'a sparse checkout' },
  // Another config file, which could hold any of the above.
  { pattern: /^include\.path$/i, what: 'an included config file' },
  { pattern: /^includeif\..+\.path$/i, what: 'an included config file' },
];

/** Whether `key` (as git lists it) is one of PROGRAM_CONFIG_KEYS. */
export function isProgramKey(key: string): boolean {
  return PROGRAM_CONFIG_KEYS.some((k) => k.pattern.test(key));
}

/** One setting as `git config --null --list` prints it: `key\nvalue`, or `key` alone (no `=`). */
export type ConfigSetting = string;

/** The key of a setting. */
export function settingKey(setting: ConfigSetting): string {
  const nl = setting.indexOf('\n');
  return nl < 0 ? setting : setting.slice(0, nl);
}

/**
 * The program keys whose values differ between `start` and `now` (added, changed, removed or
 * reordered), sorted: a key's values are compared as the list git reads, in order.
 */
export function programConfigChanges(
  start: readonly ConfigSetting[],
  now: readonly ConfigSetting[],
): string[] {
  const a = byKey(start);
  const b = byKey(now);
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].filter((k) => (a.get(k) ?? []).join('\0') !== (b.get(k) ?? []).join('\0')).sort();
}

function byKey(settings: readonly ConfigSetting[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of settings) {
    const key = settingKey(s);
    if (!isProgramKey(key)) continue;
    const list = out.get(key) ?? [];
    list.push(s);
    out.set(key, list);
  }
  return out;
}

/** A listed setting with where it came from. */
export interface ListedSetting {
  scope: string;
  /** The file it is in, absolute. */
  file: string;
  setting: ConfigSetting;
}

/** Parses `git config --list --null --show-scope --show-origin` (run in `root`). */
export function parseConfigListing(root: string, out: string): ListedSetting[] {
  const fields = out.split('\0');
  const listed: ListedSetting[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope = '', origin = '', setting = ''] = fields.slice(i, i + 3);
    const file = origin.startsWith('file:') ? resolve(root, origin.slice(5)) : origin;
    listed.push({ scope, file, setting });
  }
  return listed;
}

/** The repository's own config (local and worktree scopes, includes followed): its program settings and files. */
export interface RepositoryConfig {
  settings: ConfigSetting[];
  /** Every file it was read from, and every file an include names (read or not: it may appear later). */
  files: string[];
}

/** Reads the repository's own config through git (which follows its includes exactly as git does). */
export async function readRepositoryConfig(root: string): Promise<RepositoryConfig> {
  const out = await runGit(root, ['config', '--list', '--null', '--show-scope', '--show-origin']);
  const own = parseConfigListing(root, out).filter((l) => l.scope === 'local' || l.scope === 'worktree');
  const files = new Set(own.map((l) => l.file));
  for (const l of own) {
    const key = settingKey(l.setting);
    if (!/^include(if\..+)?\.path$/i.test(key)) continue;
    const target = includeTarget(l.file, l.setting.slice(key.length + 1));
    if (target) files.add(target);
  }
  return {
    settings: own.map((l) => l.setting).filter((s) => isProgramKey(settingKey(s))),
    files: [...files].sort(),
  };
}

/** Where an include's path points (relative to the including file, `~/` at home), as git resolves it. */
function includeTarget(from: string, path: string): string | undefined {
  if (path.length === 0) return undefined;
  if (path.startsWith('~/')) return join(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(dirname(from), path);
}

/** The program-running config at a point in time: its settings, and its files' sha256 ('' for one absent). */
export interface ConfigMark {
  settings: ConfigSetting[];
  files: Record<string, string>;
}

/** The config files git reads for the repository whatever its includes: the common one and the worktree's own. */
export function configFiles(layout: Pick<WorkTreeLayout, 'gitDir' | 'commonDir'>): string[] {
  return [join(layout.commonDir, 'config'), join(layout.gitDir, 'config.worktree')];
}

/** Each file's sha256, '' when it does not exist (an include or config.worktree may appear later). */
export function fileHashes(files: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of files) out[f] = existsSync(f) ? (hashFile(f) ?? '') : '';
  return out;
}

/** Whether every file of the mark still has its bytes (no git process: the check of every iteration). */
export function sameBytes(mark: ConfigMark): boolean {
  return Object.entries(fileHashes(Object.keys(mark.files))).every(([f, h]) => mark.files[f] === h);
}

/** The mark of the repository's config now (one `git config --list`), watching `also` too. */
export async function readConfigMark(root: string, also: readonly string[]): Promise<ConfigMark> {
  return configMarkOf(await readRepositoryConfig(root), also);
}

/** The mark of `config` as read, its files and `also` hashed now. */
export function configMarkOf(config: RepositoryConfig, also: readonly string[]): ConfigMark {
  return { settings: config.settings, files: fileHashes([...new Set([...also, ...config.files])]) };
}

/**
 * The program keys changed since `mark` (empty when none), with the mark of now; undefined when
 * no file of the mark changed a byte (no git process then). A config git cannot read counts as
 * changed: what it would run cannot be known.
 */
export async function configChangesSince(
  root: string,
  mark: ConfigMark,
): Promise<{ changed: string[]; now: ConfigMark } | undefined> {
  if (sameBytes(mark)) return undefined;
  try {
    const now = await readConfigMark(root, Object.keys(mark.files));
    return { changed: programConfigChanges(mark.settings, now.settings), now };
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    return { changed: [`(a config git cannot read: ${stderrTail(gitStderr(error))})`], now: mark };
  }
}

/** The stderr of the failed git call behind a RalphError from runGit. */
function gitStderr(error: RalphError): string {
  const cause = error.cause as { stderr?: unknown } | undefined;
  return typeof cause?.stderr === 'string' ? cause.stderr : error.message;
}
