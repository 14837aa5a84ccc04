import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readGitHead } from '../../git/head.ts';
import { rescueRef } from '../../git/rescue-refs.ts';
import type { RepoRecord, TestsGateSummary } from '../../state/iteration-record-shape.ts';
import type { PendingRollback } from '../../state/loop-state.ts';
import { testsLine } from '../commit/commit-and-push.ts';
import type { RunContext } from '../context/run-context.ts';
import type { GateResult } from '../gates/checks/run-gate.ts';
import { runTestsIn } from '../gates/gate-commands.ts';
import { gateFailure, planRollback } from '../gates/rollback.ts';
import { judgeRules } from '../gates/rules-gate.ts';
import { noteWork } from '../gates/work-progress.ts';
import { type RepoEntry, repoEntries } from '../readiness/repo-set.ts';
import { rollsBack } from '../readiness/rollback-readiness.ts';
import type { ApprovalEntry } from '../steering/approval-points.ts';
import { type RepoChange, repoChanges, workspacePath } from './repo-commits.ts';
import { reposRollbackFeedback } from './repo-rollback.ts';

/** What the repositories of `repos` made of an iteration. */
export interface ReposOutcome {
  /** The repositories it changed (the record's `repos`). */
  records: RepoRecord[];
  /** Why completion cannot stand: a repository's gate failed (named). */
  blockers: string[];
  /** The changes were rolled back (gates.on_failure: rollback): what the next prompt says. */
  rolledBack: string | undefined;
  /** Each changed repository's tests line for its commit message (by name). */
  testsLines: Record<string, string | null>;
  /** The changes are set aside in every repository once the record is saved (finishRollback). */
  rollback?: PendingRollback | undefined;
  /** rules: a changed path inside `deny` or outside `allow` (verdict `rule_violation`). */
  ruleViolation?: boolean | undefined;
}

/** At the start of a run: each repository's HEAD is where the first iteration's changes start. */
export function reposAtStart(ctx: RunContext): void {
  if (!ctx.config.repos) return;
  const heads = { ...ctx.state.repo_heads };
  for (const repo of repoEntries(ctx.options.workspace, ctx.config))
    if (!(repo.name in heads)) heads[repo.name] = readGitHead(repo.root).commit ?? null;
  ctx.state.repo_heads = heads;
}

/**
 * The tests gate of one repository, run in it (runTestsIn: with `affected`, planTests picks the
 * suite from the files the iteration changed in it).
 */
async function repoTests(
  ctx: RunContext,
  repo: RepoEntry,
  o: { iteration: number; hat: string | null; completionRequested: boolean },
  changedFiles: string[],
): Promise<{ result: GateResult | undefined; summary: TestsGateSummary | undefined } | undefined> {
  if (!repo.tests) return undefined;
  const exists = (p: string) => existsSync(resolve(repo.root, p));
  return runTestsIn(ctx, o.iteration, o.hat, {
    tests: repo.tests,
    root: repo.root,
    completionRequested: o.completionRequested,
    changes: { files: changedFiles.filter(exists), deleted: changedFiles.filter((f) => !exists(f)) },
    label: `repository ${repo.name}: `,
  });
}

/**
 * After an accepted agent run with `repos`: each repository that changed since Ralph's last commit
 * there runs its tests gate, then `rules` check every repository's changes; a broken rule, a
 * refused approval, or a failing gate with `gates.on_failure: rollback` sets the iteration aside in
 * every changed repository (finishRollback, once the record is saved). Otherwise settleWork
 * commits and pushes each changed repository after its review points. An unchanged one gets nothing.
 */
export async function settleRepos(
  ctx: RunContext,
  o: {
    iteration: number;
    hat: string | null;
    backend: string;
    summary: string;
    completionRequested: boolean;
  },
  approvals: ApprovalEntry[],
): Promise<ReposOutcome> {
  const { config, state } = ctx;
  const changed: (RepoChange & { gate: GateResult | undefined; summary: TestsGateSummary | undefined })[] =
    [];
  for (const change of await repoChanges(ctx)) {
    const tests = await repoTests(ctx, change.repo, o, change.files);
    changed.push({ ...change, gate: tests?.result, summary: tests?.summary });
  }
  // completion.require_work: a repository changed (the parent's walk may be too big to tell).
  if (changed.length > 0) noteWork(state);
  const failed = changed.filter((c) => c.gate && !c.gate.passed);
  const blockers = failed.map(
    ({ repo, gate }) =>
      `repository ${repo.name}: the tests gate is failing (${gate!.command}, exit ${gate!.exitCode ?? 'killed'})`,
  );
  // rules: globs relative to the workspace, so a repository's files are named under its path.
  const ruled = await judgeRules(
    ctx,
    o.iteration,
    changed.flatMap(({ repo, files }) => {
      const own = repo.tests?.report_file?.replace(/^\.\//, '');
      return files.filter((f) => f !== own).map((f) => workspacePath(ctx.options.workspace, repo, f));
    }),
    approvals,
  );
  const why = ruled
    ? ruled.why
    : failed.length > 0 && rollsBack(config)
      ? `a gate failed (${blockers.join('; ')})`
      : undefined;
  if (why !== undefined) {
    // Set aside once the record is saved (finishRollback), in every repository it changed.
    const rollback = planRollback(
      { iteration: o.iteration, ref: rescueRef(state.run_id, o.iteration) },
      changed.map(({ repo, before }) => ({ repo: repo.name, to: before, why })),
    );
    const records = changed.map(({ repo, files, summary }): RepoRecord => {
      const to = rollback.trees.find((t) => t.repo === repo.name)?.to;
      const record = baseRecord(repo, files, summary);
      return to ? { ...record, rollback: { ref: rollback.ref, to } } : record;
    });
    const reasons = ruled
      ? []
      : failed.map(({ repo, gate }) => `In repository ${repo.name}, ${gateFailure(gate)}`);
    return {
      records,
      blockers,
      rolledBack: reposRollbackFeedback(rollback, records, reasons),
      testsLines: {},
      rollback,
      ruleViolation: ruled?.violation === true,
    };
  }
  // git.commit and git.push, with their review points, follow in settleWork (commitRepos, pushRepos).
  const heads = { ...state.repo_heads };
  // Without git.commit the next iteration's changes start at the agent's own commits.
  if (!config.git.commit)
    for (const { repo } of changed) heads[repo.name] = readGitHead(repo.root).commit ?? null;
  state.repo_heads = heads;
  return {
    records: changed.map(({ repo, files, summary }) => baseRecord(repo, files, summary)),
    blockers,
    rolledBack: undefined,
    testsLines: Object.fromEntries(changed.map(({ repo, gate }) => [repo.name, testsLine(gate)])),
  };
}

/** What settleWork's commits and pushes did in each repository, written into its record. */
export function recordRepoWork(
  records: RepoRecord[],
  work: { repoCommits?: Record<string, string | null>; repoPushErrors?: Record<string, string> },
): void {
  for (const record of records) {
    record.commit = work.repoCommits?.[record.name] ?? null;
    const pushError = work.repoPushErrors?.[record.name];
    if (pushError) record.push_error = pushError;
  }
}

function baseRecord(repo: RepoEntry, files: string[], tests: TestsGateSummary | undefined): RepoRecord {
  return { name: repo.name, path: repo.path, files, commit: null, gates: tests ? { tests } : {} };
}
