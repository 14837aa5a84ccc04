import { Option } from '@commander-js/extra-typings';

// The options `ralph tools …` share: a table for people, JSON for agents.

export type Format = 'table' | 'json';

export const formatOption = () =>
  new Option('--format <format>', 'output format')
    .choices(['table', 'json'] as const)
    .default('table' as const);
/** `--json`, the flag every other command takes: the same as `--format json`. */
export const jsonFormatOption = () =>
  new Option('--json', 'same as --format json').implies({ format: 'json' });
export const splitList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
