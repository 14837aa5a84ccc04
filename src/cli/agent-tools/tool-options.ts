import { Option } from '@commander-js/extra-typings';

// The options `ralph tools …` share: a table for people, JSON for agents, the ids alone for scripts
// (ralph-orchestrator's `quiet`, which its users' scripts pass).

export type Format = 'table' | 'json' | 'quiet';

export const formatOption = () =>
  new Option('--format <format>', 'output format (quiet: the ids only)')
    .choices(['table', 'json', 'quiet'] as const)
    .default('table' as const);
/** `--json`, the flag every other command takes: the same as `--format json`. */
export const jsonFormatOption = () =>
  new Option('--json', 'same as --format json').implies({ format: 'json' });
export const splitList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** The ids alone, one a line (`--format quiet`). */
export const ids = (items: readonly { id: string }[]) => items.map((i) => `${i.id}\n`).join('');

export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
