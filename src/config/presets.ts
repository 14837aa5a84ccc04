import { join } from 'node:path';
import { RalphError } from '../errors.ts';
import { PRESETS_DIR } from '../paths-package.ts';

/** A workflow template written by `ralph init --preset NAME`. */
export interface Preset {
  name: string;
  description: string;
  /**
   * Files written into the workspace (relative paths). Each is copied from presets/<name>/ where a
   * path segment starting with `.` is stored as `dot-…` (see `presetSource`).
   */
  files: string[];
  /** Empty directories created. */
  dirs: string[];
  /** Files (among `files`) made executable (0o755) after copying. */
  executable?: string[];
  /** What to do after `ralph init`. */
  next: string;
}

/** The presets `ralph init --preset` offers, in the order `ralph init --list` shows them. */
export const PRESETS: readonly Preset[] = [
  {
    name: 'solo',
    description: 'one prompt in a loop until the agent prints the completion promise',
    files: ['ralph.yml', 'PROMPT.md'],
    dirs: [],
    next: 'describe the task in PROMPT.md, check cli.backend in ralph.yml, then run `ralph run`',
  },
  {
    name: 'board',
    description:
      'the hat board: a persistent board scanner + proposal writer + finisher over work/ → proposed/ → done/',
    files: ['ralph.yml', 'PROMPT.md', 'work/item-1.txt', 'work/item-2.txt', 'work/item-3.txt'],
    dirs: ['proposed', 'done'],
    next: 'check cli.backend in ralph.yml, then run `ralph run -v --no-tui -P PROMPT.md` (`ralph hats graph` shows the flow); when the board is empty the loop waits for changes in work/ and proposed/ without calling the agent — add an item to work/ and it scans again',
  },
  {
    name: 'spec',
    description:
      'the spec workflow: specs/ → IMPLEMENTATION_PLAN.md → one task per iteration, PROGRESS.md, git commits; ./ralph plan NAME',
    files: [
      'ralph.yml',
      'ralph',
      'specs/README.md',
      '.ralph/prompts/PROMPT_build.md',
      '.ralph/prompts/PROMPT_plan.md',
      '.ralph/validate.sh',
    ],
    dirs: [],
    executable: ['ralph', '.ralph/validate.sh'],
    next: 'commit these files, write a spec in specs/ (or `./ralph plan NAME` for an interactive session), check cli.backend in ralph.yml, then `./ralph` or `./ralph 20`',
  },
  {
    name: 'checklist',
    description:
      'the checklist loop: DESIGN.md milestones with `- [ ]` tasks, one task per iteration, JOURNAL.md; done when every task is checked',
    files: ['ralph.yml', 'PROMPT.md', 'DESIGN.md', 'JOURNAL.md'],
    dirs: [],
    next: 'replace the example DESIGN.md with your own milestones and `- [ ]` tasks, check cli.backend and completion.condition in ralph.yml, then `ralph run` (`ralph run --dry-run` shows the first prompt)',
  },
  {
    name: 'optimize',
    description:
      'the metric loop: one change per iteration, kept only when the benchmark improves by more than its noise, else rolled back (metric:)',
    files: ['ralph.yml', 'PROMPT.md', 'bench.sh'],
    dirs: [],
    executable: ['bench.sh'],
    next: 'put what you want faster in bench.sh (or point metric.command at your own benchmark), describe the goal in PROMPT.md, check cli.backend in ralph.yml, commit, then `ralph run`',
  },
  {
    name: 'tdd',
    description:
      'the TDD state loop: loop/state.md + a report per iteration; Ralph runs the tests and routes red → engineering, green → creative',
    files: ['ralph.yml', 'loop/state.md', 'loop/agent-prompt.md', 'loop/last_output.md'],
    dirs: [],
    next: 'fill in Goal, Current task and Constraints (and any Creative tasks) in loop/state.md, set gates.tests.command and cli.backend in ralph.yml, then `ralph run` (`ralph hats graph` shows the flow)',
  },
];

/** The preset of that name, or an `unknown_preset` error that lists them. */
export function findPreset(name: string): Preset {
  const preset = PRESETS.find((p) => p.name === name);
  if (!preset)
    throw new RalphError(
      'unknown_preset',
      `unknown preset "${name}"; available: ${PRESETS.map((p) => p.name).join(', ')} (see \`ralph presets\`)`,
    );
  return preset;
}

/**
 * Where a workspace path is stored in the package: `.ralph/.gitignore` → `dot-ralph/dot-gitignore`.
 * Dot paths would be hidden by the repository's own `.gitignore` (`.ralph/`) and npm drops
 * `.gitignore` files from packages, so presets keep them under `dot-` names.
 */
export function presetSource(file: string): string {
  return file
    .split('/')
    .map((segment) => (segment.startsWith('.') ? `dot-${segment.slice(1)}` : segment))
    .join('/');
}

export function presetFile(preset: string, file: string): string {
  return join(PRESETS_DIR, preset, presetSource(file));
}
