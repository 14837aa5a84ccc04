import { fakeConfig, makeWorkspace } from './workspace.ts';

/**
 * A checklist project (seed 003) on the fake backend: DESIGN.md with two open boxes, one iteration
 * per run (`max_iterations: 1`), each iteration checking off the first open box.
 */
export function oneBoxPerRunChecklist(): string {
  return makeWorkspace({
    'DESIGN.md': '# Design\n\n## Milestone 1: Only\n\n- [ ] one\n- [ ] two\n',
    'PROMPT.md': 'Do the next unchecked task of DESIGN.md.\n',
    'ralph.yml': `${fakeConfig({ max_iterations: 1 })}completion:\n  checklist: DESIGN.md\n  condition: all_tasks\n`,
    'fake-agent.yml': 'turns:\n  - do:\n      - run: sed -i "0,/- \\[ \\]/s//- [x]/" DESIGN.md\n',
  });
}
