import { join } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import type { GateResult } from '../../gates/run-gate.ts';
import { resolveCommit } from '../../git/branches.ts';
import { readGitHead } from '../../git/head.ts';
import { moveAsideUnits, rescueRef, resetTo, saveRescue, untrackedUnits } from '../../git/rescue-refs.ts';
import { tailWithin } from '../../routing/prompt.ts';
import type { PendingRollback } from '../../state/loop-state.ts';
import { RALPH_DIR, RUNTIME_PATHS } from '../../state/paths.ts';
import type { RunContext } from '../context/run-context.ts';
import { rollbackRefusal, rollsBack } from '../readiness/rollback-readiness.ts';
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
 * The rollback of an iteration: to the last green commit with `gates.on_failure: rollback`, else to
 * where the iteration started (`headBefore`); undefined when there is no commit to go back to.
 */
export function planRollback(
  ctx: RunContext,
  iteration: number,
  why: string,
  headBefore: string | null,
): PendingRollback | undefined {
  const to = rollsBack(ctx.config) ? ctx.state.last_green : headBefore;
  if (!ctx.inRepo || !to) return undefined;
  return { iteration, ref: rescueRef(ctx.state.run_id, iteration), to, why, rescued: false };
}

/** What the next prompt says about a rollback: what, why, and where the changes are kept. */
export function rollbackFeedback(r: PendingRollback): string {
  const [first = '', ...rest] = r.why.split('\n');
  return [
    `Iteration ${r.iteration} was rolled back: ${first}. The work tree is back at ${r.to.slice(0, 12)}, the last commit whose gates passed; the rolled-back changes are kept in ${r.ref} (\`ralph rescue show ${r.iteration}\`). Make the change again in a way that passes, or take another approach.`,
    ...rest,
  ].join('\n');
}

/** The after-the-fact commit of the last green state: HEAD once an iteration's gates passed. */
export function markGreen(ctx: RunContext): void {
  if (!rollsBack(ctx.config) || !ctx.inRepo) return;
  ctx.state.last_green = readGitHead(ctx.options.workspace).commit ?? ctx.state.last_green ?? null;
}

/**
 * Sets the pending rollback's changes aside and resets the workspace (rollBackTree): `rescued` is
 * saved once the rescue ref holds them, then the tree goes back to the green commit.
 */
export async function finishRollback(ctx: RunContext): Promise<void> {
  const { state } = ctx;
  const r = state.rollback;
  if (!r) return;
  const part = { ...r, root: ctx.options.workspace, runId: state.run_id };
  // A gate since the agent's turn may have hidden a file again: the rescue ref must hold it.
  await clearHiddenIndexFlags(ctx, `iteration ${r.iteration}'s gates`);
  const journal = {
    rescued: r.rescued,
    saveRescued: () => {
      state.rollback = { ...r, rescued: true };
      ctx.persist();
    },
  };
  const aside = await rollBackTree(part, journal);
  // The next iteration's progress is measured from the tree it starts with.
  await rememberTree(ctx);
  state.rollback = null;
  state.last_green = r.to;
  ctx.persist();
  ctx.emit({
    type: 'notice',
    level: 'warn',
    message: `iteration ${r.iteration} rolled back to ${r.to.slice(0, 12)}; its changes are kept in ${r.ref} (ralph rescue show ${r.iteration})${asideNote(aside)}`,
  });
}

/** One tree's part of a rollback: the workspace's, or one repository's of `repos`. */
export interface TreeRollback {
  /** The work tree's root. */
  root: string;
  /** The repository's name in `repos`; undefined for the workspace. */
  repo?: string;
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
  const where = t.repo === undefined ? '' : ` in ${t.repo}`;
  const moved =
    aside.length > 0
      ? `\n- Moved aside whole (nested repositories, not in this commit): ${aside.join(', ')}`
      : '';
  return `ralph: rescue of iteration ${t.iteration}${where} (rolled back)\n\n- Why: ${first}\n- Rolled back to: ${t.to}\n- Run: ${t.runId}${moved}\n\n${t.why}\n`;
}

/** A rollback to finish (saved with the iteration's record, before anything is set aside), or null: none. */
export function saveRollback(state: RunContext['state'], r: PendingRollback | null): void {
  state.rollback = r;
}
