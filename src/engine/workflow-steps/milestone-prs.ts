import type { RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import { milestoneBranch, onGithub } from '../../forge/forge-remote.ts';
import { configuredRemoteUrl, fetchRemoteBranch, resolveCommit, switchBranch } from '../../git/branches.ts';
import { readGitHead } from '../../git/head.ts';
import { pushWithRetry } from '../../git/push.ts';
import type { PreflightEvent } from '../../observe/events.ts';
import { formatCost } from '../../observe/format.ts';
import type { IterationRecord } from '../../state/iteration-record-shape.ts';
import type { ForgeState, MilestonePr } from '../../state/loop-state.ts';
import { currentMilestone, milestoneComplete } from '../../workflows/checklist.ts';
import type { RunContext } from '../context/run-context.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { readChecklist } from './checklist-view.ts';

/** `forge.pull_requests` as it applies: the key, else per_milestone for a checklist run whose push remote is on GitHub. */
export function pullRequestMode(config: RalphConfig, remoteUrl: string | undefined): 'per_milestone' | 'off' {
  if (config.forge.pull_requests !== undefined) return config.forge.pull_requests;
  return config.completion.checklist && onGithub(remoteUrl, config.forge.host) ? 'per_milestone' : 'off';
}

/** A pre-flight check's line (readiness/health-checks.ts's HealthResult). */
type HealthResult = PreflightEvent['checks'][number];

const fatal = (check: string, message: string): HealthResult[] => [{ check, level: 'fatal', message }];

/**
 * The forge's pre-flight (seed 003): `Platform: github` and `Remote: <url>`, or a fatal check
 * before any agent call — no checklist, no remote, another host, no token, a token that cannot push.
 * Sets `ctx.forge` and starts the run's forge bookkeeping.
 */
export async function forgePreflight(ctx: RunContext): Promise<HealthResult[]> {
  const { config, options, state } = ctx;
  const workspace = options.workspace;
  const remote = config.git.remote;
  // Without a checklist, or with forge.pull_requests set, the remote does not decide the mode: when
  // that leaves it off, no git process asks for the remote's URL before the first agent.
  const decided = config.forge.pull_requests !== undefined || !config.completion.checklist;
  if (decided && pullRequestMode(config, undefined) === 'off') return [];
  const url = ctx.inRepo ? await configuredRemoteUrl(workspace, remote) : undefined;
  if (pullRequestMode(config, url) === 'off') return [];
  if (!config.completion.checklist)
    return fatal('forge', 'forge.pull_requests: per_milestone needs completion.checklist (the milestones)');
  if (!ctx.inRepo || url === undefined)
    return fatal(
      'forge',
      `forge.pull_requests: per_milestone needs a git repository with a remote "${remote}": \`git remote add ${remote} https://github.com/<owner>/<repo>.git\``,
    );
  try {
    // The forge's client loads only when pull requests are on, not on every run's start.
    const { openForge } = await import('../../forge/open-forge.ts');
    ctx.forge = await openForge({
      remote: { name: remote, url },
      host: config.forge.host,
      env: options.env ?? process.env,
      workspace,
      redact: ctx.redact,
      // A spent hourly quota parks the run until its reset (run/forge-quota.ts).
      waitForReset: ctx.forgeQuotaWait,
    });
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    if (error.code === 'forge_unsupported') return fatal('Platform', error.message);
    return [
      { check: 'Platform', level: 'ok', message: 'github' },
      { check: 'Remote', level: 'ok', message: url },
      ...fatal('GitHub', error.message),
    ];
  }
  const branch = readGitHead(workspace).branch;
  state.forge ??= {
    target: branch && branch !== '(detached)' ? branch : ctx.forge.defaultBranch,
    active: null,
    prs: [],
    waiting: null,
  };
  return [
    { check: 'Platform', level: 'ok', message: 'github' },
    { check: 'Remote', level: 'ok', message: url },
  ];
}

/**
 * Before an iteration: the current milestone works on its own branch. A new milestone's branch
 * starts from the updated target after a merge, else from HEAD (the target at the start, the
 * previous milestone's branch in multi-PR mode, whose pull request is then its base).
 */
export async function enterMilestone(ctx: RunContext): Promise<void> {
  const f = ctx.state.forge;
  if (!ctx.forge || !f) return;
  const workspace = ctx.options.workspace;
  const view = readChecklist(workspace, ctx.config, ctx.state.start_milestone ?? null);
  const milestone = view ? currentMilestone(view.checklist) : null;
  if (!milestone) return;
  let start = 'HEAD';
  if (f.active?.milestone !== milestone.title) {
    const last = f.prs.at(-1);
    const stacked =
      last && !ctx.config.forge.wait_for_merge && last.status !== 'merged' && last.status !== 'closed';
    // After a merge the target moved on the forge: the next milestone starts from there.
    if (f.merged_target && (await fetchRemoteBranch(workspace, ctx.forge.remote, f.target)))
      start = `refs/remotes/${ctx.forge.remote}/${f.target}`;
    f.active = {
      milestone: milestone.title,
      // The slug of an agent-written heading: a secret in it becomes `redacted`, never a ref.
      branch: milestoneBranch(ctx.redact(milestone.title)),
      base: stacked ? last.branch : f.target,
    };
    f.merged_target = false;
    ctx.persist();
  }
  const active = f.active as NonNullable<ForgeState['active']>;
  if (readGitHead(workspace).branch !== active.branch) await switchBranch(workspace, active.branch, start);
}

/** The last gates as the pull request body lists them. */
function gateLines(gates: IterationRecord['gates']): string[] {
  return Object.entries(gates).flatMap(([name, g]) =>
    g
      ? [
          `${name} ${g.passed ? 'passed' : `failed (${g.timed_out ? 'timed out' : `exit ${g.exit_code}`})`}: \`${g.command}\``,
        ]
      : [],
  );
}

/**
 * After an iteration: the milestone's branch is pushed when it moved, its pull request opened
 * (a draft; an open one for the branch is adopted) or its body brought up to date, and once the
 * milestone's boxes are all checked and the gates pass, marked ready with a comment. With
 * `wait_for_merge`, a further milestone then waits for the merge (`state.forge.waiting`).
 */
export async function milestonePrStep(
  ctx: RunContext,
  iteration: number,
  gates: IterationRecord['gates'],
): Promise<{ stop?: Stop; pr?: MilestonePr }> {
  const { state, config } = ctx;
  const f = state.forge;
  const forge = ctx.forge;
  if (!forge || !f?.active) return {};
  const active = f.active;
  const workspace = ctx.options.workspace;
  const head = await resolveCommit(workspace, 'HEAD');
  const tracking = `refs/remotes/${forge.remote}/${active.branch}`;
  if (head !== null && head !== (await resolveCommit(workspace, tracking))) {
    try {
      await pushWithRetry(workspace, {
        remote: forge.remote,
        branch: active.branch,
        attempts: config.git.push_attempts,
        delayMs: config.git.push_retry_delay_seconds * 1000,
        redact: ctx.redact,
      });
    } catch (error) {
      return { stop: stop('push_failed', (error as Error).message) };
    }
    ctx.emit({ type: 'git.pushed', iteration, remote: forge.remote, branch: active.branch });
  }
  // Nothing on the forge yet: a pull request needs a pushed branch.
  if ((await resolveCommit(workspace, tracking)) === null) return {};
  const view = readChecklist(workspace, config, state.start_milestone ?? null);
  const tasks = view?.checklist.milestones.find((m) => m.title === active.milestone)?.tasks ?? [];
  const body = pullRequestBody({
    milestone: active.milestone,
    tasks,
    checklist: config.completion.checklist ?? '',
    gates: gateLines(gates),
    costUsd: state.cost_usd,
    iterations: state.iterations,
    runId: state.run_id,
  });
  let pr = f.prs.find((p) => p.branch === active.branch && (p.status === 'draft' || p.status === 'open'));
  const announce = (action: 'opened' | 'adopted' | 'ready', p: MilestonePr) =>
    ctx.emit({
      type: 'forge.pull_request',
      iteration,
      action,
      number: p.number,
      url: p.url,
      draft: p.status === 'draft',
      milestone: p.milestone,
      branch: p.branch,
      base: p.base,
    });
  if (!pr) {
    const found = await forge.pulls.findOpen(active.branch);
    const opened =
      found ??
      (await forge.pulls.open({
        title: active.milestone,
        body,
        head: active.branch,
        base: active.base,
        draft: config.forge.draft,
      }));
    pr = {
      milestone: active.milestone,
      branch: active.branch,
      base: active.base,
      number: opened.number,
      node_id: opened.nodeId,
      url: opened.url,
      status: opened.draft ? 'draft' : 'open',
    };
    // Saved with the iteration's record; a kill before that re-runs the iteration, which adopts it.
    f.prs.push(pr);
    announce(found ? 'adopted' : 'opened', pr);
    if (found) await forge.pulls.update(pr.number, { body });
  } else {
    await forge.pulls.update(pr.number, { body });
  }
  const gatesPass = Object.values(gates).every((g) => g === undefined || g.passed);
  if (view && milestoneComplete(view.checklist, active.milestone) && gatesPass) {
    if (pr.status === 'draft') await forge.pulls.markReady(pr.node_id);
    await forge.pulls.comment(
      pr.number,
      `Ready for review: every task of milestone "${active.milestone}" is checked${gates.tests || gates.validate ? ' and the gates pass' : ''}.`,
    );
    pr.status = 'ready';
    announce('ready', pr);
    f.active = null;
    if (config.forge.wait_for_merge && currentMilestone(view.checklist) !== null) f.waiting = pr.number;
  }
  return { pr };
}

/** What a milestone's pull request body shows, kept current after every iteration. */
export interface PrBodyInput {
  milestone: string;
  tasks: { text: string; done: boolean }[];
  /** The design document (`DESIGN.md`). */
  checklist: string;
  /** The last iteration's gates: `tests passed`, `validate failed (exit 1)`; empty without gates. */
  gates: string[];
  costUsd: number;
  iterations: number;
  runId: string;
}

/** The pull request body: the milestone's task checklist, gate results and cost so far. */
export function pullRequestBody(i: PrBodyInput): string {
  const done = i.tasks.filter((t) => t.done).length;
  return [
    `Milestone **${i.milestone}** of \`${i.checklist}\`, worked on by Ralph (run \`${i.runId}\`).`,
    '',
    `### Tasks (${done}/${i.tasks.length})`,
    ...i.tasks.map((t) => `- [${t.done ? 'x' : ' '}] ${t.text}`),
    '',
    '### Gates',
    ...(i.gates.length > 0 ? i.gates.map((g) => `- ${g}`) : ['- none configured']),
    '',
    `Cost so far: ${formatCost(i.costUsd)} over ${i.iterations} iteration${i.iterations === 1 ? '' : 's'}.`,
    '',
  ].join('\n');
}

/** The wait for a pull request's merge is over: it was merged (the next milestone starts from the updated target) or closed. */
export function endMergeWait(
  f: ForgeState,
  pr: MilestonePr | undefined,
  outcome?: 'merged' | 'closed',
): void {
  f.waiting = null;
  if (!pr || !outcome) return;
  pr.status = outcome;
  if (outcome === 'merged') f.merged_target = pr.base === f.target;
}
