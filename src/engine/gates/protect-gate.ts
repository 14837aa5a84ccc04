import { existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { approvalPoints } from '../../config/human-checks.ts';
import { RalphError } from '../../errors.ts';
import {
  putBack,
  recordSwap,
  restoreSwapped,
  type SwappedFile,
  swapJournalFile,
} from '../../state/crash-repair.ts';
import { removeFile, replaceFile } from '../../state/io/file-writes.ts';
import { readRecords } from '../../state/records-file.ts';
import { listFiles } from '../commit/workspace-git.ts';
import type { RunContext } from '../context/run-context.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { type ApprovalEntry, approvalEntry } from '../steering/approval-points.ts';
import { askHuman } from '../steering/human-wait.ts';
import {
  configFileGlobs,
  contentHash,
  entryMode,
  keepCopies,
  protectedGlobs,
  realDirsTo,
  snapshot,
  tamperedPaths,
  unmatchedPatterns,
} from './checks/protected-files.ts';

/**
 * At the start of a run: a warning for each `gates.protect` pattern that selects no file, then the
 * protected files' hashes and copies (kept across --resume), then the put-back of the agent's
 * versions a gate's swap left recorded when Ralph was killed. The baseline is taken first: the
 * agent can write that record, so what it puts back is checked like any change of the agent's.
 */
export function protectAtStart(ctx: RunContext): void {
  const ws = ctx.options.workspace;
  for (const pattern of unmatchedPatterns(ws, ctx.config.gates.protect ?? []))
    ctx.emit({
      type: 'notice',
      level: 'warn',
      message: `gates.protect: '${pattern}' matches no file — nothing is protected by it (patterns are globs from the workspace root: \`**/\` for any depth)`,
    });
  const configGlobs = configFileGlobs(ws, ctx.options.configFiles ?? []);
  if (ctx.state.protected) rebaseConfigFiles(ctx, configGlobs);
  else {
    const globs = [...protectedGlobs(ctx.config, ws), ...configGlobs];
    const hashes = snapshot(ws, globs);
    keepCopies(ws, ctx.paths.protectedStore, hashes, holdsSecret(ctx));
    ctx.state.protected = { globs, hashes };
    // Saved before the put-back: a crash after it must not leave a run whose baseline is the agent's.
    if (existsSync(swapJournalFile(ctx.paths))) ctx.persist();
  }
  const swapped = restoreSwapped(ctx.paths);
  if (swapped.length > 0)
    ctx.emit({
      type: 'notice',
      level: 'warn',
      message: `put back the agent's version of ${swapped.length} protected file(s) a gate was running without when Ralph was killed (${swapped.map((f) => relative(ws, f)).join(', ')}); the protected ones count as changed by the next iteration`,
    });
}

/**
 * On --resume the config files are protected as the user starts the run with them (the user may have
 * edited them meanwhile): a change is said, and refused when the run's last iteration was refused for it.
 */
function rebaseConfigFiles(ctx: RunContext, configGlobs: readonly string[]): void {
  const p = ctx.state.protected;
  if (!p) return;
  const now = snapshot(ctx.options.workspace, configGlobs);
  const changed = Object.keys(now).filter((rel) => p.hashes[rel] !== undefined && p.hashes[rel] !== now[rel]);
  const lastRefused = readRecords(ctx.recordsFile).records.at(-1)?.tampered ?? [];
  const agents = changed.filter((rel) => lastRefused.includes(rel));
  if (agents.length > 0)
    throw new RalphError(
      'git_state',
      `${listFiles(agents)} changed since run ${ctx.state.run_id} started and its last iteration was not accepted for changing it: the agent did. Restore it (\`git diff ${agents.join(' ')}\`, \`git checkout -- ${agents.join(' ')}\`), then \`ralph run --resume\`; if you want that change, start a run that trusts it: \`ralph run --fresh\``,
    );
  p.globs = [...new Set([...p.globs, ...configGlobs])];
  p.hashes = { ...p.hashes, ...now };
  if (changed.length > 0)
    ctx.emit({
      type: 'notice',
      level: 'warn',
      message: `${listFiles(changed)} changed since this run started; the run goes on with it as it is now (\`git diff ${changed.join(' ')}\` shows how; if you did not change it, the agent did: restore it and run \`ralph run --resume\` again)`,
    });
}

/**
 * The protected files the iteration changed (empty when none). With review points configured a
 * human may allow the change: the new content then becomes the protected one.
 */
export async function checkProtected(
  ctx: RunContext,
  iteration: number,
  approvals: ApprovalEntry[],
): Promise<string[]> {
  const p = ctx.state.protected;
  if (!p) return [];
  const ws = ctx.options.workspace;
  const now = snapshot(ws, p.globs);
  const tampered = tamperedPaths(p.hashes, now);
  if (tampered.length === 0 || approvalPoints(ctx.config).length === 0) return tampered;
  const outcome = await askHuman(ctx, {
    kind: 'approval',
    text: `Iteration ${iteration} changed protected files (${listFiles(tampered)}). Allow the change?`,
  });
  const r = outcome.record;
  approvals.push(approvalEntry('protected', r));
  if (outcome.kind !== 'answered' || r.answer !== 'approve') return tampered;
  keepCopies(ws, ctx.paths.protectedStore, now, holdsSecret(ctx));
  p.hashes = now;
  return [];
}

/** A git control file's name (git-control-files.ts): `.git…`, or absolute outside the work tree. */
const isControl = (p: string) => p === '.git' || p.startsWith('.git/') || isAbsolute(p);

/** What the next prompt says about it. */
export function tamperedFeedback(tampered: readonly string[]): string {
  const files = tampered.filter((p) => !isControl(p));
  const control = tampered.filter(isControl);
  const checks = files.length
    ? `it changed protected files (${listFiles(files)}; gates.protect). Those files check your work — restore them (e.g. \`git checkout -- <file>\`) and make the checks pass by changing the code instead.`
    : '';
  const git = control.length
    ? `it changed ${control.join(', ')}, git's own control files (they choose which repository, objects and filters git uses, or hide files from Ralph's commit and rollback) — they were put back as the run started; leave them alone, and ignore files in .gitignore, set attributes in .gitattributes, where the change shows.`
    : '';
  return `Iteration not accepted: ${[checks, git].filter(Boolean).join(' And ')} Nothing of that iteration was committed.`;
}

/**
 * Runs `fn` (the gates) with the protected content in place of the agent's versions, then puts the
 * agent's versions back: gates never run from a version the agent modified. The agent's versions
 * are recorded durably before the swap (state/crash-repair.ts): a kill mid-gate loses nothing.
 */
export async function withProtectedContent<T>(
  ctx: RunContext,
  tampered: readonly string[],
  fn: () => Promise<T>,
): Promise<T> {
  const p = ctx.state.protected;
  if (!p || tampered.length === 0) return fn();
  const ws = ctx.options.workspace;
  const swaps: { agent: SwappedFile; copy: string | undefined; mode: string | undefined }[] = [];
  for (const rel of tampered) {
    const entry = p.hashes[rel];
    // A symlink is protected by its target's name only, a file too big to copy by its hash only.
    const copy =
      entry && entryMode(entry) !== '120000' ? join(ctx.paths.protectedStore, contentHash(entry)) : undefined;
    const agent = agentVersion(join(ws, rel));
    // A directory where the file was, or a directory on its path removed or made a link, cannot be
    // swapped (Ralph writes through no link of the agent's): its gate runs as it is, refused all the same.
    if ((entry && !(copy && existsSync(copy))) || !agent || !realDirsTo(ws, rel)) continue;
    swaps.push({ agent, copy, mode: entry && entryMode(entry) });
  }
  if (swaps.length === 0) return fn();
  recordSwap(
    ctx.paths,
    swaps.map((s) => s.agent),
  );
  try {
    for (const { agent, copy, mode } of swaps) {
      // Removed first: a symlink the agent put there is replaced, never written through.
      if (!copy) {
        removeFile(agent.path); // a file the agent added where only protected files may be
        continue;
      }
      replaceFile(
        agent.path,
        readFileSync(copy),
        mode === '100755' ? 0o755 : mode === '100644' ? 0o644 : (agent.mode ?? 0o644) & 0o777,
      );
    }
    return await fn();
  } finally {
    // From the record; should it be gone (a user cleared .ralph/protected/), from memory.
    if (restoreSwapped(ctx.paths).length === 0) putBack(swaps.map((s) => s.agent));
  }
}

/** What the agent left at `path`: a symlink's target, a file's content and mode, nothing; undefined for a directory. */
function agentVersion(path: string): SwappedFile | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return { path, content: null };
  if (st.isDirectory()) return undefined;
  if (st.isSymbolicLink()) return { path, content: null, link: readlinkSync(path) };
  return { path, content: readFileSync(path), mode: st.mode & 0o7777 };
}

/** Changing protected files max_consecutive_failures times in a row ends the run. */
export function tamperedStop(ctx: RunContext, tampered: string[]): Stop | undefined {
  if (tampered.length === 0 || ctx.state.consecutive_failures < ctx.limits.maxConsecutiveFailures)
    return undefined;
  return stop(
    'gate_tampered',
    `${ctx.state.consecutive_failures} iterations in a row changed protected files (${tampered.join(', ')}; gates.protect); the changes are in the work tree, uncommitted — review them, then \`ralph run --resume\``,
  );
}

/** Whether a text holds what the run redacts (a secret of the config or the environment, a key shape). */
const holdsSecret = (ctx: RunContext) => (text: string) => ctx.redact(text) !== text;
