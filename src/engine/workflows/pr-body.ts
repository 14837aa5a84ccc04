import { formatCost } from '../../observe/format.ts';

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
