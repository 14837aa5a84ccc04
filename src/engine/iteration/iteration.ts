import { resolve } from 'node:path';
import { readGitHead } from '../../git/head.ts';
import type { Skill } from '../../skills/skill-registry.ts';
import { setCurrent } from '../../state/loop-state/in-flight.ts';
import { userMemoriesFile } from '../../state/memories/user-memories.ts';
import { archiveProgress } from '../../workflows/progress-archive.ts';
import { announceSwept, leftBehind } from '../context/agent-turns.ts';
import { noteEventsOffset, queueEvents } from '../context/event-queue.ts';
import type { RunContext } from '../context/run-context.ts';
import type { Stop } from '../decide/limits.ts';
import { filesAtStart, forgetUnreachableStart } from '../gates/changed-files.ts';
import { rulesAtStart } from '../gates/rules-start.ts';
import { rememberTree } from '../gates/work-progress.ts';
import { iterationStartedHooks } from '../hooks/loop-hooks.ts';
import { writeIterationMarker } from '../workflow-steps/checklist-view.ts';
import { activeFallback } from './backend-fallback.ts';
import { cleanAgentFiles } from './clean-agent-files.ts';
import { readExternalEvents } from './collect-events.ts';
import { runIterationAgent, type StartedIteration } from './iteration-agent.ts';
import { settleIteration } from './iteration-outcome.ts';
import { announceRoute } from './iteration-prompt.ts';
import { type IterationPlan, planIteration } from './plan-iteration.ts';
import { recordIteration } from './record-iteration.ts';

/**
 * One iteration (DESIGN.md §2): route → prompt → agent → collect → gates → decide → record.
 * Returns a Stop when the loop must end because of it.
 */
export async function runIteration(ctx: RunContext): Promise<Stop | undefined> {
  const { state } = ctx;
  const number = state.current?.number ?? state.iterations + 1;
  // A human wait may have come between the last boundary and this agent.
  ctx.holdLock();

  // Events published from outside an iteration (e.g. `ralph emit` in another terminal).
  const external = readExternalEvents(ctx);
  noteEventsOffset(state, external.nextOffset);
  queueEvents(state, external.published);
  // Before the prompt reads them: what was written since the last clean (another terminal, a resumed run).
  cleanAgentFiles(ctx);

  await archiveOldProgress(ctx);
  // Read fresh each iteration: the agent may have added or edited a skill.
  const plan = planFor(ctx, number, await skillsOf(ctx));
  // Before the iteration is marked current: a hook that blocks leaves nothing half-started.
  const refused = await iterationStartedHooks(ctx, number, plan.route.hatId);
  if (refused) return refused;
  await forgetUnreachableStart(ctx, number);
  const started = startIteration(ctx, number, plan);
  // What the agent detached is swept at its end: it must not touch the workspace while Ralph
  // checks and commits it.
  const phase = await runIterationAgent(ctx, started);
  announceSwept(ctx, `iteration ${number}`, leftBehind(phase.run));
  // The agent may have deleted or rewritten the lock; nothing is settled for a loop that lost it.
  ctx.holdLock();
  // The agent's own files, before Ralph commits memories.md or a gate or the next prompt reads them.
  cleanAgentFiles(ctx);
  const outcome = await settleIteration(ctx, phase);
  // Gate commands carry the mark too: each was swept after it ran (and before any human wait).
  const afterGates = ctx.leftovers.splice(0);
  const killed = [...phase.run.supervised.killed, ...phase.run.swept, ...outcome.killed, ...afterGates];
  await recordIteration(ctx, phase, outcome, killed);
  return outcome.stopAfter;
}

/** `progress.archive_after_days`: old PROGRESS.md entries move to their month's archive (never while the agent runs). */
async function archiveOldProgress(ctx: RunContext): Promise<void> {
  const { config, options } = ctx;
  if (config.progress.archive_after_days <= 0) return;
  const file = resolve(options.workspace, config.progress.file);
  const result = archiveProgress(file, config.progress.archive_after_days, new Date(ctx.now()));
  if (result.moved === 0) return;
  // Ralph's own change: the next iteration's progress is measured from here, not credited with it.
  await rememberTree(ctx);
  ctx.emit({
    type: 'notice',
    level: 'info',
    message: `archived ${result.moved} ${config.progress.file} ${result.moved === 1 ? 'entry' : 'entries'} older than ${config.progress.archive_after_days} days to progress/archive/ (${result.months.join(', ')})`,
  });
}

/**
 * The iteration's route, prompt and agent command (planIteration), with the loop's effects: the
 * fallback's end said, exhausted hats published, the journal's iteration marker written.
 */
function planFor(ctx: RunContext, number: number, skills: readonly Skill[]): IterationPlan {
  const { options, config, state } = ctx;
  const fallback = activeFallback(ctx);
  const plan = planIteration({
    config,
    prompt: options.prompt,
    workspace: options.workspace,
    paths: ctx.paths,
    state,
    number,
    maxIterations: ctx.limits.maxIterations,
    backend: options.backend,
    extraArgs: ctx.options.extraArgs ?? [],
    fallback,
    userMemories: userMemoriesFile(options.env ?? process.env),
    skills,
  });
  announceRoute(ctx, number, plan.route.selection);
  // After the journal was read: the marker heads what this iteration appends, not its prompt.
  writeIterationMarker(options.workspace, config, number, new Date(ctx.now()));
  return plan;
}

/** Marks the iteration as current and announces it. */
function startIteration(
  ctx: RunContext,
  number: number,
  { route, prompt, invocation, view, scratchpad, guidance, wave }: IterationPlan,
): StartedIteration {
  const { options, state, emit } = ctx;
  const { hatId, hat, backend } = route;
  const startedAt = ctx.now();
  const headBefore = readGitHead(options.workspace);
  // A re-run after a crash started where its first try did: a commit that try landed is this
  // iteration's candidate (measured, gated, rolled back from there), not the new starting point.
  const retried = state.current?.number === number ? state.current.head_before : undefined;
  const startCommit = retried !== undefined ? retried : (headBefore.commit ?? null);
  // Before the agent can touch anything, and before `current` says a try of it started.
  const rulesBefore = rulesAtStart(ctx, number, state.current?.number === number);
  // Saved once the agent's pid is known (onSpawn, in-flight.json); a crash before re-runs the same number anyway.
  setCurrent(state, {
    number,
    hat: hatId,
    started_at: new Date(startedAt).toISOString(),
    agent_pid: null,
    agent_start_time: null,
    head_before: startCommit,
  });
  emit({
    type: 'iteration.started',
    iteration: number,
    maxIterations: ctx.limits.maxIterations,
    hat: hatId,
    backend: backend.name,
    elapsedMs: ctx.elapsed(),
    branch: headBefore.branch,
    startedAt,
    progress: view?.progress,
  });
  if (hatId)
    emit({
      type: 'hat.activated',
      iteration: number,
      hatId,
      hatName: hat?.name ?? hatId,
      triggeredBy: route.selection.consumed.map((e) => e.topic),
    });
  emit({
    type: 'prompt.assembled',
    iteration: number,
    hat: hatId,
    prompt,
    bytes: Buffer.byteLength(prompt),
    scratchpad,
  });
  return {
    number,
    route,
    prompt,
    invocation,
    startedAt,
    headBefore: startCommit,
    filesBefore: filesAtStart(ctx),
    rulesBefore,
    guidance,
    ...(wave ? { wave } : {}),
  };
}

/** This iteration's skills, read fresh; the reader is loaded only when skills are configured. */
async function skillsOf(ctx: RunContext): Promise<Skill[]> {
  const { skills } = ctx.config;
  if (!skills?.enabled || skills.dirs.length === 0) return [];
  const { loadSkills } = await import('../../skills/skill-registry.ts');
  return loadSkills(skills, ctx.options.workspace);
}
