import { resolve } from 'node:path';
import { approvalPoints } from '../../config/human-checks.ts';
import { readOptional } from '../../state/io/read-optional.ts';
import { openCreativeTasks, parseTddState } from '../../workflows/tdd-state.ts';
import { queueEvents } from '../context/event-queue.ts';
import type { RunContext } from '../context/run-context.ts';
import { countOpenTasks } from '../context/workspace-context.ts';
import { TASK_RESUME } from '../decide/event-decisions.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { validateCommand } from './checks/run-gate.ts';
import { runTestsIn, runValidateGate } from './gate-commands.ts';

/**
 * The marker or checklist says the work is done before any agent ran: the run completes only when
 * every other completion condition holds for the tree as it is — the gates run once here, without
 * an agent. Otherwise the run iterates, its first prompt saying why the claim was refused. A resumed
 * run whose last completion was refused never completes here: that refusal stands until an
 * iteration's completion is accepted.
 */
export async function confirmDoneAtStart(ctx: RunContext, claim: string): Promise<Stop | undefined> {
  const { config, state } = ctx;
  const refused = state.pending_events.find((e) => e.source === 'completion_rejected');
  if (refused) return notDone(ctx, claim, ['the last iteration’s completion was rejected'], false);
  const reasons = unprovable(ctx);
  if (reasons.length > 0) return notDone(ctx, claim, reasons, true);
  // The gates a completing iteration runs, on the tree as it is: the full tests, then validate.
  const number = state.iterations;
  const tests =
    config.gates.tests && !config.repos
      ? await runTestsIn(ctx, number, null, {
          tests: config.gates.tests,
          root: ctx.options.workspace,
          completionRequested: true,
          changes: null,
          label: '',
        })
      : undefined;
  if (tests?.result && !tests.result.passed)
    reasons.push(
      `the tests are failing (${tests.result.command}, exit ${tests.result.exitCode ?? 'killed'})`,
    );
  const validate = validateCommand(config, ctx.options.workspace);
  const validated = validate ? await runValidateGate(ctx, number, null, validate) : undefined;
  if (validated && !validated.passed)
    reasons.push(`the validate hook fails (${validated.command}, exit ${validated.exitCode ?? 'killed'})`);
  // Gate commands carry the run's mark: nothing they started outlives this check.
  if (tests?.result || validated) await ctx.sweep({ runId: state.run_id }, Math.min(ctx.graceMs, 1000));
  return reasons.length === 0 ? stop('completed', claim) : notDone(ctx, claim, reasons, true);
}

/** The completion conditions no gate command can show without an agent or a human. */
function unprovable(ctx: RunContext): string[] {
  const { config, state } = ctx;
  const reasons: string[] = [];
  const missing = config.event_loop.required_events.filter((t) => !state.seen_topics.includes(t));
  if (missing.length > 0) reasons.push(`required events not seen yet: ${missing.join(', ')}`);
  const open = countOpenTasks(config, ctx.paths);
  if (open > 0) reasons.push(`${open} task(s) still open (ralph tools task list)`);
  const tdd = config.tdd;
  const tddText = tdd ? readOptional(resolve(ctx.options.workspace, tdd.state_file), 'absent') : undefined;
  const creative = tddText ? openCreativeTasks(parseTddState(tddText)) : 0;
  if (creative > 0) reasons.push(`${creative} creative task(s) still open in ${tdd?.state_file}`);
  if ((config.repos ?? []).some((r) => r.gates?.tests))
    reasons.push("each repository's tests run after an iteration");
  if (config.gates.review?.when === 'complete') reasons.push('gates.review must approve the completion');
  if (approvalPoints(config).includes('before_complete')) reasons.push('a human must approve the completion');
  return reasons;
}

/** Says why the claim does not complete the run, and (once) tells the first prompt the same. */
function notDone(ctx: RunContext, claim: string, reasons: string[], tell: boolean): undefined {
  const said = claim.replace(/: nothing to do.*$/, '');
  ctx.emit({
    type: 'notice',
    level: 'warn',
    message: `${said}, but the run is not complete: ${reasons.join('; ')} — iterating`,
  });
  if (!tell) return undefined;
  const event = {
    topic: TASK_RESUME,
    payload: `Completion rejected: ${reasons.join('; ')}. Finish that work before the run can complete.`,
    source: 'completion_rejected',
    iteration: null,
  };
  ctx.publish(event, null);
  queueEvents(ctx.state, [event]);
  return undefined;
}
