import { existsSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { planTests } from '../../gates/affected-tests.ts';
import { type GateResult, testsReport } from '../../gates/run-gate.ts';
import { readGitHead } from '../../git/head.ts';
import type { RepoRecord, TestsGateSummary } from '../../observe/iteration-record.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import type { ReposRollback } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import { commitStep, pushStep, testsLine } from '../git/commit-and-push.ts';
import { filesChanged } from '../git/workspace-git.ts';
import type { ApprovalEntry } from '../human/approval-points.ts';
import { rollsBack } from '../readiness/preflight.ts';
import { type RepoEntry, repoEntries } from '../readiness/repo-set.ts';
import { runGateStep, summarize } from '../verify/gate-commands.ts';
import { gateFailure } from '../verify/rollback.ts';
import { judgeRules } from '../verify/rules-gate.ts';
import { planReposRollback, reposRollbackFeedback } from './repo-rollback.ts';

/** What the repositories of `repos` made of an iteration. */
export interface ReposOutcome {
  /** The repositories it changed (the record's `repos`). */
  records: RepoRecord[];
  /** Why completion cannot stand: a repository's gate failed (named). */
  blockers: string[];
  /** The changes were rolled back (gates.on_failure: rollback): what the next prompt says. */
  rolledBack: string | undefined;
  /** git.push failed in a repository: the first error, the repository named. */
  pushError: string | undefined;
  /** The changes are set aside in every repository once the record is saved (finishReposRollback). */
  rollback?: ReposRollback | undefined;
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
 * The tests gate of one repository, run in it (its report file written there when configured):
 * with `affected`, planTests picks the suite from the files the iteration changed in it.
 */
async function repoTests(
  ctx: RunContext,
  repo: RepoEntry,
  o: { iteration: number; hat: string | null; completionRequested: boolean },
  changedFiles: string[],
): Promise<{ result: GateResult; summary: TestsGateSummary } | undefined> {
  const tests = repo.tests;
  if (!tests) return undefined;
  const exists = (p: string) => existsSync(resolve(repo.root, p));
  const plan = planTests({
    tests,
    iteration: o.iteration,
    completionRequested: o.completionRequested,
    changes: { files: changedFiles.filter(exists), deleted: changedFiles.filter((f) => !exists(f)) },
    exists,
  });
  if (plan.scope === 'skipped') {
    ctx.emit({
      type: 'notice',
      level: 'info',
      message: `repository ${repo.name}: tests: affected: skipped, ${plan.why}`,
    });
    return undefined;
  }
  const why = plan.scope === 'full' && plan.why ? ` — the full suite: ${plan.why}` : '';
  ctx.emit({ type: 'notice', level: 'info', message: `repository ${repo.name}: tests${why}` });
  const result = await runGateStep(
    ctx,
    o.iteration,
    o.hat,
    'tests',
    plan.command,
    tests.timeout_seconds * 1000,
    repo.root,
  );
  if (tests.report_file)
    writeFileAtomicSync(
      resolve(repo.root, tests.report_file),
      testsReport(result, o.iteration, new Date(ctx.now())),
    );
  const summary: TestsGateSummary = {
    ...summarize(result),
    scope: plan.scope,
    ...(plan.scope === 'affected' ? { files: plan.files } : plan.why ? { why: plan.why } : {}),
  };
  return { result, summary };
}

/**
 * After an accepted agent run with `repos`: each repository that changed since Ralph's last commit
 * there runs its tests gate; then, with `gates.on_failure: rollback` and a failing gate, every
 * changed repository's change is set aside in its own rescue ref and its tree reset; otherwise each
 * changed repository gets its own commit (`git.commit`) and push (`git.push`). A repository that did
 * not change gets nothing.
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
  const heads = state.repo_heads ?? {};
  const changed: {
    repo: RepoEntry;
    before: string | null;
    files: string[];
    gate: GateResult | undefined;
    summary: TestsGateSummary | undefined;
  }[] = [];
  for (const repo of repoEntries(ctx.options.workspace, config)) {
    const before = heads[repo.name] ?? null;
    const files = await filesChanged(repo.root, before, readGitHead(repo.root).commit ?? null);
    if (files.length === 0) continue;
    const tests = await repoTests(ctx, repo, o, files);
    changed.push({ repo, before, files, gate: tests?.result, summary: tests?.summary });
  }
  // completion.require_work: a repository changed (the parent's walk may be too big to tell).
  if (changed.length > 0) state.did_work = true;
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
      const under = relative(ctx.options.workspace, repo.root).split(sep).join('/');
      return files.filter((f) => f !== own).map((f) => (under ? `${under}/${f}` : f));
    }),
    approvals,
  );
  const why = ruled
    ? ruled.why
    : failed.length > 0 && rollsBack(config)
      ? `a gate failed (${blockers.join('; ')})`
      : undefined;
  if (why !== undefined) {
    // Set aside once the record is saved (finishReposRollback), in every repository it changed.
    const rollback = planReposRollback(state.run_id, o.iteration, why, changed);
    const records = changed.map(({ repo, files, summary }): RepoRecord => {
      const to = rollback.repos.find((r) => r.name === repo.name)?.to;
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
      pushError: undefined,
      rollback,
      ruleViolation: ruled?.violation === true,
    };
  }
  const records: RepoRecord[] = [];
  let pushError: string | undefined;
  for (const { repo, before, files, gate, summary } of changed) {
    const record = baseRecord(repo, files, summary);
    if (config.git.commit)
      record.commit = await commitStep(
        ctx,
        {
          iteration: o.iteration,
          hat: o.hat,
          backend: o.backend,
          summary: o.summary,
          before,
          tests: testsLine(gate),
        },
        repo,
      );
    if (config.git.push) {
      const error = await pushStep(ctx, o.iteration, repo);
      if (error) record.push_error = error;
      pushError ??= error ? `repository ${repo.name}: ${error}` : undefined;
    }
    // The next iteration's changes start here (a kill before the state is saved re-counts them, never loses them).
    heads[repo.name] = readGitHead(repo.root).commit ?? null;
    records.push(record);
  }
  state.repo_heads = heads;
  return { records, blockers, rolledBack: undefined, pushError };
}

function baseRecord(repo: RepoEntry, files: string[], tests: TestsGateSummary | undefined): RepoRecord {
  return { name: repo.name, path: repo.path, files, commit: null, gates: tests ? { tests } : {} };
}
