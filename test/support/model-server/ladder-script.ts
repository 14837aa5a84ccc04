import type { Script } from './script.ts';

/**
 * A model-ladder task for a real agent CLI (docs/concepts/models.md): the model answers without
 * doing the work `failures` times, so the tests gate (`LADDER_GATE`) fails and each time the next
 * iteration moves one rung up; then it writes done.txt with its shell tool and completes.
 */
export function ladderScript(failures: number): Script {
  return {
    rules: [
      {
        match: 'LADDER-TASK',
        times: failures,
        reply: { text: 'Not sure how.', usage: { input: 500, output: 10 } },
      },
      {
        match: 'LADDER-TASK',
        reply: {
          tools: [{ kind: 'shell', command: 'echo ok > done.txt' }],
          text: 'Done.\nLOOP_COMPLETE',
          usage: { input: 500, output: 10 },
        },
      },
    ],
  };
}

/** The prompt of the ladder task. */
export const LADDER_PROMPT = 'Write done.txt. LADDER-TASK\n';

/** The ralph.yml section whose tests gate fails until done.txt exists. */
export const LADDER_GATE = 'gates:\n  tests:\n    command: test -f done.txt\n';

/** The models of consecutive calls, each run of the same model once: the rungs the server saw. */
export const rungsSeen = (models: unknown[]): unknown[] => models.filter((m, i, all) => m !== all[i - 1]);
