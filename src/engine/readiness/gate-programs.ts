import type { RalphConfig } from '../../config/schema.ts';
import { findExecutable } from '../../process/find-executable.ts';
import type { HealthResult } from './health-checks.ts';
import { repoEntries } from './repo-set.ts';

/** Shell words that are not programs on PATH. */
const SHELL_WORDS = new Set([
  '.',
  ':',
  '[',
  'cd',
  'echo',
  'exec',
  'exit',
  'export',
  'false',
  'printf',
  'set',
  'source',
  'test',
  'true',
  'if',
  'for',
  'while',
  'case',
  '(',
  '{',
  '!',
  'time',
  'env',
  'command',
]);

/** The program a `sh -c` command line runs first (after `VAR=value` assignments), or undefined. */
function firstProgram(command: string): string | undefined {
  for (const word of command.trim().split(/\s+/)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
    const clean = word.replace(/^['"]|['"]$/g, '');
    return clean === '' || SHELL_WORDS.has(clean) || /[$`;|&<>()]/.test(clean) ? undefined : clean;
  }
  return undefined;
}

/**
 * Gate commands whose program is not there: the gate would fail after the first iteration. A
 * repository's own tests gate (`repos[i].gates.tests`) is looked up from that repository.
 */
export function gateChecks(workspace: string, config: RalphConfig, env: NodeJS.ProcessEnv): HealthResult[] {
  const gates: [string, string | undefined, string][] = [
    ['gates.tests.command', config.gates.tests?.command, workspace],
    ['gates.tests.affected', config.gates.tests?.affected, workspace],
    [
      'gates.validate',
      typeof config.gates.validate === 'string' ? config.gates.validate : undefined,
      workspace,
    ],
  ];
  repoEntries(workspace, config).forEach((repo, i) => {
    const own = config.repos?.[i]?.gates?.tests;
    if (!own) return;
    gates.push([`${repo.key}.gates.tests.command`, own.command, repo.root]);
    gates.push([`${repo.key}.gates.tests.affected`, own.affected, repo.root]);
  });
  return gates.flatMap(([key, command, cwd]): HealthResult[] => {
    const program = command === undefined ? undefined : firstProgram(command);
    if (program === undefined) return [];
    const found = findExecutable(program, env.PATH, cwd);
    return found.found
      ? [{ check: 'gates', level: 'ok', message: `${key}: ${program} → ${found.path}` }]
      : [
          {
            check: 'gates',
            level: 'fatal',
            message: `${key} runs \`${program}\`, which is not there (${found.detail}): install it or fix the command in ralph.yml`,
          },
        ];
  });
}
