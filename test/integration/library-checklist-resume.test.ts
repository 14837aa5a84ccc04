import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RalphError, resolveRun, runLoop } from '../../src/index.ts';
import { oneBoxPerRunChecklist } from '../helpers/checklist-workspace.ts';

// Seed 003 from a program: runLoop({ mode: 'auto' }) over an earlier run on the same checklist is
// refused as `ralph run` refuses it, and `mode` says what to do about it.

describe('runLoop over an earlier checklist run (library API)', () => {
  it("refuses mode 'auto' with resume_or_fresh, touching nothing; mode 'resume' continues the run", async () => {
    const dir = oneBoxPerRunChecklist();
    const run = () => ({ workspace: dir, ...resolveRun({ cwd: dir }) });
    const first = await runLoop(run());
    expect(first).toMatchObject({ stopReason: 'max_iterations', iterations: 1 });
    const stateFile = join(dir, '.ralph', 'state.json');
    const before = readFileSync(stateFile, 'utf8');

    const refused = await runLoop(run()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RalphError);
    expect(refused).toMatchObject({
      code: 'resume_or_fresh',
      message:
        'an earlier run on DESIGN.md exists (iteration 1 of 1, stopped: max_iterations); pass --resume to continue it or --fresh to start over',
    });
    expect(readFileSync(stateFile, 'utf8')).toBe(before);

    // As `ralph run --resume --max-iterations 2`: one more iteration of the same run.
    const more = run();
    more.config.event_loop.max_iterations = 2;
    const resumed = await runLoop({ ...more, mode: 'resume' });
    expect(resumed).toMatchObject({ runId: first.runId, iterations: 2, stopReason: 'completed' });
    // `fresh` starts a new run (here over a list already done).
    const fresh = await runLoop({ ...run(), mode: 'fresh' });
    expect(fresh).toMatchObject({ iterations: 0, stopReason: 'completed' });
    expect(fresh.runId).not.toBe(first.runId);
  });
});
