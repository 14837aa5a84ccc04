import { resolve } from 'node:path';
import { type GateResult, testsReport } from '../../gates/run-gate.ts';
import { resolveCommit } from '../../git/branches.ts';
import { readGitHead } from '../../git/head.ts';
import { rescueRef, resetTo, saveRescue } from '../../git/rescue-refs.ts';
import type { RepoRecord } from '../../observe/iteration-record.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import { RUNTIME_PATHS } from '../../state/paths.ts';
import type { RunContext } from '../context/run-context.ts';
import { commitStep, pushStep, testsLine } from '../git/commit-and-push.ts';
import { filesChanged } from '../git/workspace-git.ts';
import { rollsBack } from '../readiness/preflight.ts';
import { type RepoEntry, repoEntries } from '../readiness/repo-set.ts';
import { runGateStep, summarize } from '../verify/gate-commands.ts';
import { gateFailure } from '../verify/rollback.ts';

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
}

/** At the start of a run: each repository's HEAD is where the first iteration's changes start. */
export function reposAtStart(ctx: RunContext): void {
  if (!ctx.config.repos) return;
  const heads = { ...ctx.state.repo_heads };
  for (const repo of repoEntries(ctx.options.workspace, ctx.config))
    if (!(repo.name in heads)) heads[repo.name] = readGitHead(repo.root).commit ?? null;
  ctx.state.repo_heads = heads;
}

/** The tests gate of one repository, run in it (its report file written there when configured). */
async function repoTests(ctx: RunContext, repo: RepoEntry, iteration: number, hat: string | null) {
  const tests = repo.tests;
  if (!tests) return undefined;
  ctx.emit({ type: 'notice', level: 'info', message: `repository ${repo.name}: tests` });
  const result = await runGateStep(
    ctx,
    iteration,
    hat,
    'tests',
    tests.command,
    tests.timeout_seconds * 1000,
    repo.root,
  );
  if (tests.report_file)
    writeFileAtomicSync(
      resolve(repo.root, tests.report_file),
      testsReport(result, iteration, new Date(ctx.now())),
    );
  return result;
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
  o: { iteration: number; hat: string | null; backend: string; summary: string },
): Promise<ReposOutcome> {
  const { config, state } = ctx;
  const heads = state.repo_heads ?? {};
  const changed: { repo: RepoEntry; before: string | null; files: string[]; gate: GateResult | undefined }[] =
    [];
  for (const repo of repoEntries(ctx.options.workspace, config)) {
    const before = heads[repo.name] ?? null;
    const files = await filesChanged(repo.root, before, readGitHead(repo.root).commit ?? null);
    if (files.length === 0) continue;
    changed.push({ repo, before, files, gate: await repoTests(ctx, repo, o.iteration, o.hat) });
  }
  // completion.require_work: a repository changed (the parent's walk may be too big to tell).
  if (changed.length > 0) state.did_work = true;
  const failed = changed.filter((c) => c.gate && !c.gate.passed);
  const blockers = failed.map(
    ({ repo, gate }) =>
      `repository ${repo.name}: the tests gate is failing (${gate!.command}, exit ${gate!.exitCode ?? 'killed'})`,
  );
  const records: RepoRecord[] = [];
  if (failed.length > 0 && rollsBack(config)) {
    const ref = rescueRef(state.run_id, o.iteration);
    for (const { repo, before, files, gate } of changed) {
      // Preflight made sure there is a commit; an unborn branch is never reset.
      if (before === null) continue;
      if ((await resolveCommit(repo.root, ref)) === null)
        await saveRescue(repo.root, {
          ref,
          base: before,
          message: `ralph: rescue of iteration ${o.iteration} in ${repo.name} (rolled back)\n\n- Why: ${blockers.join('; ')}\n- Rolled back to: ${before}\n- Run: ${state.run_id}\n`,
          exclude: RUNTIME_PATHS,
        });
      await resetTo(repo.root, before, { exclude: [] });
      records.push({ ...baseRecord(repo, files, gate), rollback: { ref, to: before } });
      ctx.emit({
        type: 'notice',
        level: 'warn',
        message: `repository ${repo.name}: iteration ${o.iteration} rolled back to ${before.slice(0, 12)}; its changes are kept in ${ref} (git -C ${repo.path} show ${ref})`,
      });
    }
    return {
      records,
      blockers,
      rolledBack: rollbackFeedback(o.iteration, records, failed),
      pushError: undefined,
    };
  }
  let pushError: string | undefined;
  for (const { repo, before, files, gate } of changed) {
    const record = baseRecord(repo, files, gate);
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

function baseRecord(repo: RepoEntry, files: string[], gate: GateResult | undefined): RepoRecord {
  return {
    name: repo.name,
    path: repo.path,
    files,
    commit: null,
    gates: gate ? { tests: summarize(gate) } : {},
  };
}

/** What the next prompt says about a multi-repository rollback: which gates failed, where the changes are kept. */
function rollbackFeedback(
  iteration: number,
  records: RepoRecord[],
  failed: { repo: RepoEntry; gate: GateResult | undefined }[],
): string {
  const kept = records.map(
    (r) => `${r.name} (${r.path}): ${r.rollback?.ref} — back at ${r.rollback?.to.slice(0, 12)}`,
  );
  const why = failed.map(({ repo, gate }) => `In repository ${repo.name}, ${gateFailure(gate)}`);
  return [
    `Iteration ${iteration} was rolled back in every repository it changed, because a gate failed. The changes are kept as rescue refs:\n${kept.map((k) => `- ${k}`).join('\n')}\nMake the change again in a way that passes, or take another approach.`,
    ...why,
  ].join('\n\n');
}
