import { join } from 'node:path';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import { readOptional } from '../../state/io/read-optional.ts';
import type { RunContext } from '../context/run-context.ts';
import { type RulesSnapshot, rulesSnapshot } from './checks/path-rules.ts';
import { tamperedPaths } from './checks/protected-files.ts';

/**
 * `.ralph/runs/<run>/rules-start.json`: the snapshot an iteration's rules judge from
 * (engine/gates/checks/path-rules.ts), saved before its agent starts so a re-run after a crash judges from the same
 * start. `carry` (in memory only, never in the file): the iteration was not accepted by the rules,
 * so the next one starts from this snapshot too (what it changed is judged again, never absorbed).
 */
interface SavedStart {
  iteration: number;
  carry?: boolean;
  files: RulesSnapshot;
}

const FILE = 'rules-start.json';

/**
 * The last start this process saved, per run: the file is read only by a process that did not
 * write it (a --resume). The agent can rewrite files under .ralph/; a running loop never takes
 * its word for its own start.
 */
const remembered = new WeakMap<RunContext, SavedStart>();

function fileOf(ctx: RunContext): string {
  return join(ctx.paths.runs, ctx.state.run_id, FILE);
}

function readSaved(ctx: RunContext): SavedStart | undefined {
  try {
    const v = JSON.parse(readOptional(fileOf(ctx), 'absent') ?? 'null') as SavedStart | null;
    if (typeof v?.iteration !== 'number' || typeof v.files !== 'object' || v.files === null) return undefined;
    return v;
  } catch {
    return undefined;
  }
}

function save(ctx: RunContext, value: SavedStart): void {
  remembered.set(ctx, value);
  // No fsync: after a power loss the file is missing or old, and a re-run then fails safe.
  writeFileAtomicSync(fileOf(ctx), JSON.stringify(value), { fsync: false });
}

/**
 * The snapshot iteration `number` is judged from, when `rules` are set (undefined without them, and
 * with `repos`): a re-run of an iteration whose try started (`retried`: parked, aborted, or resumed
 * after a crash) takes the saved one, and null when none was saved for it (its start is unknown:
 * the rules refuse it rather than guess). An iteration after one the rules did not accept starts
 * from that one's start — carried in memory only: a file the agent could have written never
 * says which changes are already accepted.
 */
export function rulesAtStart(
  ctx: RunContext,
  number: number,
  retried: boolean,
): RulesSnapshot | null | undefined {
  const rules = ctx.config.rules;
  if (!rules || ctx.config.repos) return undefined;
  const mine = remembered.get(ctx);
  const saved = mine ?? readSaved(ctx);
  if (saved?.iteration === number) return saved.files;
  if (retried) return null;
  const files = mine?.carry ? mine.files : rulesSnapshot(ctx.options.workspace, rules);
  save(ctx, { iteration: number, files });
  return files;
}

/**
 * The files under the rules' directories the agent changed since `before` (added, changed, deleted);
 * null when the start is unknown; undefined when the rules are not walked. Taken as the agent ends,
 * before any gate writes.
 */
export function rulesWalkChanges(
  ctx: RunContext,
  before: RulesSnapshot | null | undefined,
): string[] | null | undefined {
  const rules = ctx.config.rules;
  if (before === undefined || !rules) return undefined;
  if (before === null) return null;
  return tamperedPaths(before, rulesSnapshot(ctx.options.workspace, rules));
}

/** The rules did not accept the iteration: the next one is judged from the same start. */
export function carryRulesStart(
  ctx: RunContext,
  number: number,
  before: RulesSnapshot | null | undefined,
): void {
  if (before) save(ctx, { iteration: number, carry: true, files: before });
}

/** Why an iteration with an unknown start is refused (rules-gate.ts). */
export function unknownStartReason(ctx: RunContext): string {
  return `its start is not known (.ralph/runs/${ctx.state.run_id}/${FILE} is missing: resumed after a crash or a power loss?), so what it did to files git does not show cannot be judged against the rules`;
}
