import { join } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import { resolveCommit } from '../../git/branches.ts';
import { readGitHead } from '../../git/head.ts';
import { moveAsideUnits, rescueRef, resetTo, saveRescue, untrackedUnits } from '../../git/rescue-refs.ts';
import { tailWithin } from '../../routing/assemble-prompt.ts';
import type { PendingRollback, RollbackTree } from '../../state/loop-state.ts';
import { RALPH_DIR, RUNTIME_PATHS } from '../../state/paths.ts';
import type { RunContext } from '../context/run-context.ts';
import { repoEntries } from '../readiness/repo-set.ts';
import { rollbackRefusal, rollsBack } from '../readiness/rollback-readiness.ts';
import type { GateResult } from './checks/run-gate.ts';
import { clearHiddenIndexFlags } from './git-view.ts';
import { rememberTree } from './work-progress.ts';

/** Characters of a failed gate's output the next prompt carries (its end: where the errors are). */
const GATE_OUTPUT_BUDGET = 1500;

/** Refuses to start a run whose rollback could not work (rollbackRefusal). */
export function checkRollbackPossible(config: RalphConfig, inRepo: boolean, head: string | null): void {
  const refusal = rollbackRefusal(config, inRepo, head);
  if (refusal) throw new RalphError(inRepo ? 'git_state' : 'not_a_git_repo', refusal);
}

/**
 * At the start of a run: the run's start commit is its first green state, and a rollback a crash
 * interrupted is finished (its changes are in the rescue ref, or still only in the tree).
 */
export async function rollbackAtStart(ctx: RunContext): Promise<void> {
  const { state } = ctx;
  if (state.rollback) await finishRollback(ctx);
  if (!rollsBack(ctx.config) || !ctx.inRepo) return;
  state.last_green ??= readGitHead(ctx.options.workspace).commit ?? null;
}

/** Why the iteration's gates failed, with the end of the failing gate's output; undefined when they did not. */
export function gateFailure(gate: GateResult | undefined): string | undefined {
  if (!gate || gate.passed) return undefined;
  const how = gate.timedOut ? 'timed out' : `exited with ${gate.exitCode ?? 'a signal'}`;
  const output = tailWithin(gate.output.trimEnd(), GATE_OUTPUT_BUDGET).text;
  return `the ${gate.gate} gate failed: \`${gate.command}\` ${how}${output ? `\n\n\`\`\`\n${output}\n\`\`\`` : ''}`;
}

/**
 * Why an iteration that left a nested repository is not committed (git would record only a
 * reference to a commit that is nowhere, or fail on one with none); undefined when it left none.
 * A run starts on a clean tree (git.require_clean), so any there now is the iteration's.
 */
export async function nestedRepoRefusal(ctx: RunContext): Promise<string | undefined> {
  if (!ctx.inRepo || !ctx.config.git.commit) return undefined;
  const units = await untrackedUnits(ctx.options.workspace, { exclude: RUNTIME_PATHS });
  if (units.length === 0) return undefined;
  return `it created a nested git repository Ralph does not commit: ${units.join(', ')} (moved aside whole on rollback; put the files in this repository instead)`;
}

/**
 * The rollback of an iteration (pure): each repository it changed (a workspace run: the workspace,
 * `repo` null) keeps its part in the rescue ref and returns to `to`; one with no commit to return to
 * is left alone (preflight refuses a repository with none).
 */
export function planRollback(
  at: { iteration: number; ref: string },
  parts: { repo: string | null; to: string | null; why: string }[],
): PendingRollback {
  const trees = parts.flatMap(({ repo, to, why }) =>
    to === null ? [] : [{ repo, to, why, rescued: false }],
  );
  return { ...at, trees };
}

/**
 * The workspace's rollback: to the last green commit with `gates.on_failure: rollback`, else to
 * where the iteration started (`headBefore`); undefined when there is no commit to go back to.
 */
export function workspaceRollback(
  ctx: RunContext,
  iteration: number,
  why: string,
  headBefore: string | null,
): PendingRollback | undefined {
  const to = rollsBack(ctx.config) ? ctx.state.last_green : headBefore;
  if (!ctx.inRepo || !to) return undefined;
  return planRollback({ iteration, ref: rescueRef(ctx.state.run_id, iteration) }, [{ repo: null, to, why }]);
}

/** The workspace's part of a rollback (a workspace run's only one). */
export function workspacePart(r: PendingRollback): RollbackTree | undefined {
  return r.trees.find((t) => t.repo === null);
}

/** An iteration's rollbacks as one, the workspace's part first; null when nothing is to be set aside. */
export function joinRollbacks(...parts: (PendingRollback | undefined)[]): PendingRollback | null {
  const first = parts.find((p) => p !== undefined);
  const trees = parts.flatMap((p) => p?.trees ?? []);
  return first && trees.length > 0 ? { ...first, trees } : null;
}

/** What the next prompt says about a rollback: what, why, and where the changes are kept. */
export function rollbackFeedback(r: PendingRollback): string {
  const { why = '', to = '' } = workspacePart(r) ?? {};
  const [first = '', ...rest] = why.split('\n');
  return [
    `Iteration ${r.iteration} was rolled back: ${first}. The work tree is back at ${to.slice(0, 12)}, the last commit whose gates passed; the rolled-back changes are kept in ${r.ref} (\`ralph rescue show ${r.iteration}\`). Make the change again in a way that passes, or take another approach.`,
    ...rest,
  ].join('\n');
}

/** The after-the-fact commit of the last green state: HEAD once an iteration's gates passed. */
export function markGreen(ctx: RunContext): void {
  if (!rollsBack(ctx.config) || !ctx.inRepo) return;
  ctx.state.last_green = readGitHead(ctx.options.workspace).commit ?? ctx.state.last_green ?? null;
}

/**
 * Sets the pending rollback's changes aside, one repository after the other (the workspace first):
 * rollBackTree saves its rescue ref and resets it, then it leaves `trees`, saved. A kill at any point
 * leaves each part in its tree, its ref, or both, and --resume (which calls this first) finishes the rest.
 */
export async function finishRollback(ctx: RunContext): Promise<void> {
  const { state } = ctx;
  const r = state.rollback;
  if (!r) return;
  const repos = new Map(repoEntries(ctx.options.workspace, ctx.config).map((e) => [e.name, e]));
  let left = r.trees;
  for (const tree of r.trees) {
    const notice =
      tree.repo === null
        ? await rollBackWorkspace(ctx, r, tree, (rescued) => {
            left = left.map((t) => (t.repo === null ? rescued : t));
            saveRollback(state, { ...r, trees: left });
            ctx.persist();
          })
        : await rollBackRepo(ctx, r, tree, repos.get(tree.repo));
    left = left.filter((t) => t.repo !== tree.repo);
    saveRollback(state, left.length > 0 ? { ...r, trees: left } : null);
    if (tree.repo === null) state.last_green = tree.to;
    ctx.persist();
    if (notice) ctx.emit({ type: 'notice', level: 'warn', message: notice });
  }
}

/** The workspace's part: its index flags cleared, set aside with `rescued` journalled; the notice's words. */
async function rollBackWorkspace(
  ctx: RunContext,
  r: PendingRollback,
  tree: RollbackTree,
  saveRescued: (tree: RollbackTree) => void,
): Promise<string> {
  // A gate since the agent's turn may have hidden a file again: the rescue ref must hold it.
  await clearHiddenIndexFlags(ctx, `iteration ${r.iteration}'s gates`);
  const journal = { rescued: tree.rescued, saveRescued: () => saveRescued({ ...tree, rescued: true }) };
  const part = { ...r, ...tree, root: ctx.options.workspace, runId: ctx.state.run_id };
  const aside = await rollBackTree(part, journal);
  // The next iteration's progress is measured from the tree it starts with.
  await rememberTree(ctx);
  return `iteration ${r.iteration} rolled back to ${tree.to.slice(0, 12)}; its changes are kept in ${r.ref} (ralph rescue show ${r.iteration})${asideNote(aside)}`;
}

/**
 * One repository's part of `repos`: its rescue ref itself says it was saved. A repository no longer
 * in ralph.yml is left as it is (its part stays in the tree, or the ref); no notice then.
 */
async function rollBackRepo(
  ctx: RunContext,
  r: PendingRollback,
  tree: RollbackTree,
  repo: { root: string; path: string } | undefined,
): Promise<string | undefined> {
  if (!repo || tree.repo === null) return undefined;
  await rollBackTree({ ...r, ...tree, root: repo.root, runId: ctx.state.run_id });
  return `repository ${tree.repo}: iteration ${r.iteration} rolled back to ${tree.to.slice(0, 12)}; its changes are kept in ${r.ref} (git -C ${repo.path} show ${r.ref})`;
}

/** One tree's part of a rollback: the workspace's, or one repository's of `repos`. */
export interface TreeRollback {
  /** The work tree's root. */
  root: string;
  /** The repository's name in `repos`; null for the workspace. */
  repo: string | null;
  iteration: number;
  /** `refs/ralph/rescue/<run>/<iteration>`. */
  ref: string;
  /** The commit the tree returns to. */
  to: string;
  /** Why, for the rescue commit's message. */
  why: string;
  runId: string;
}

/** A rollback's saved record that the rescue ref holds the changes (`rescued`), and how it is saved. */
export interface RescueJournal {
  rescued: boolean;
  saveRescued(): void;
}

/**
 * Sets one tree's changes aside and resets it, in that order: first the rescue ref (skipped when the
 * journal says `rescued`, or a crash left the ref written), then the journal saves `rescued`, then
 * the tree goes back to `to`. A kill at any point leaves the changes in the tree, the ref, or both,
 * and calling this again (--resume) finishes the rest. Without a journal the ref alone says it.
 */
export async function rollBackTree(t: TreeRollback, journal?: RescueJournal): Promise<string[]> {
  // Nested repositories first: git cannot rescue them, and the reset must not delete them.
  const dest = join(t.root, RALPH_DIR, 'rescue-files', t.runId, String(t.iteration));
  const aside = await moveAsideUnits(t.root, dest, { exclude: [`${RALPH_DIR}/`] });
  if (!journal?.rescued) {
    if ((await resolveCommit(t.root, t.ref)) === null)
      await saveRescue(t.root, {
        ref: t.ref,
        base: t.to,
        message: rescueMessage(t, aside),
        exclude: RUNTIME_PATHS,
      });
    journal?.saveRescued();
  }
  // The clean leaves Ralph's directory alone: its runtime files (never in the rescue) stay where no .gitignore covers them.
  await resetTo(t.root, t.to, { exclude: [`${RALPH_DIR}/`] });
  return aside;
}

/** The notice's words for the directories moved aside whole (moveAsideUnits), empty when none. */
function asideNote(aside: readonly string[]): string {
  return aside.length > 0 ? `; nested repositories moved aside, not in the ref: ${aside.join(', ')}` : '';
}

function rescueMessage(t: TreeRollback, aside: readonly string[]): string {
  const [first = ''] = t.why.split('\n');
  const where = t.repo === null ? '' : ` in ${t.repo}`;
  const moved =
    aside.length > 0
      ? `\n- Moved aside whole (nested repositories, not in this commit): ${aside.join(', ')}`
      : '';
  return `ralph: rescue of iteration ${t.iteration}${where} (rolled back)\n\n- Why: ${first}\n- Rolled back to: ${t.to}\n- Run: ${t.runId}${moved}\n\n${t.why}\n`;
}

/** A rollback to finish (saved with the iteration's record, before anything is set aside), or null: none; its one owner. */
export function saveRollback(state: RunContext['state'], r: PendingRollback | null): void {
  state.rollback = r;
}
