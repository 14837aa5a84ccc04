import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ParallelEvent, resolveRun, runParallel } from '../../src/index.ts';
import { addTasks, makeParallelWorkspace } from '../helpers/parallel-workspace.ts';

/** A fake-agent turn: when the prompt names TITLE, write FILE and finish. */
const writes = (title: string, file: string) =>
  `  - when: { prompt: "\\\\*\\\\*${title}\\\\*\\\\*" }\n    do:\n      - write: { path: ${file}, content: "${title}\\n" }\n      - print: LOOP_COMPLETE\n`;

describe('runParallel (library API)', { timeout: 120_000 }, () => {
  it('runs from a resolved run as ralph run --parallel does: the backend adapter, workers from config.parallel', async () => {
    const dir = makeParallelWorkspace(
      `turns:\n${writes('Alpha', 'alpha.txt')}${writes('Beta', 'beta.txt')}`,
      'parallel: 2\n',
    );
    const ids = await addTasks(dir, ['Alpha', 'Beta']);
    const events: ParallelEvent[] = [];
    let closed = false;
    const result = await runParallel({
      workspace: dir,
      ...resolveRun({ cwd: dir }),
      reporters: [
        {
          onEvent: (e) => events.push(e),
          close: () => {
            closed = true;
          },
        },
      ],
    });
    expect(result, result.message).toMatchObject({ exitCode: 0, reason: 'completed' });
    expect(result.state.workers).toBe(2);
    for (const id of ids) expect(result.state.tasks[id]?.state).toBe('merged');
    expect(readFileSync(join(dir, 'alpha.txt'), 'utf8')).toBe('Alpha\n');
    expect(readFileSync(join(dir, 'beta.txt'), 'utf8')).toBe('Beta\n');
    expect(events[0]).toMatchObject({ type: 'parallel.started', workers: 2 });
    expect(events.at(-1)).toMatchObject({ type: 'parallel.finished', merged: 2, total: 2 });
    // Closed once the run has ended, as runLoop closes its reporters.
    expect(closed).toBe(true);
  });
});
