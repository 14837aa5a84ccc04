import { Option } from '@commander-js/extra-typings';
import { UsageError } from '../errors.ts';

// The options many commands share, declared once with one help text, and the one parser of
// numeric flags: every command that takes them builds them here.

const collect = (value: string, previous: string[]) => [...previous, value];

/** `-c, --config FILE`; `description` only where the file means something else (fleet submit). */
export const configOption = (description = 'config file (default: ralph.yml when present)') =>
  new Option('-c, --config <file>', description);

/** `--set key.path=value`, repeatable: the overrides, in order. */
export const setOption = () =>
  new Option('--set <key.path=value>', 'override any config value (repeatable)')
    .argParser(collect)
    .default([] as string[]);

/** `--preset NAME` as a config layer; `description` only where it means more (fleet submit). */
export const presetOption = (
  description = 'a preset’s ralph.yml as a layer over yours, without `ralph init` (see `ralph presets`)',
) => new Option('--preset <name>', description);

/** `-H, --hats SOURCE`: ralph-orchestrator's hats source over the config's hats. */
export const hatsOption = () =>
  new Option(
    '-H, --hats <source>',
    "a hats file (or builtin:PRESET) whose hats and events replace the config's, and whose event_loop completion_promise, starting_event and cancellation_promise override it",
  );

/** `--json`; `description` says the shape where it is not the command's usual output as JSON. */
export const jsonOption = (description = 'machine-readable output') => new Option('--json', description);

/** The error for an option that swallowed the next flag as its value (`--max-iterations -v`). */
export function swallowedFlagError(option: string, value: string): UsageError {
  return new UsageError(
    `${option} expects a value but got the flag ${value}: give ${option} a value (quote it if it starts with "-")`,
  );
}

/** What a numeric flag accepts. */
export interface NumberRule {
  /** Whole numbers only. */
  integer: boolean;
  min: number;
  /** `min` itself is not allowed (a cost or a duration > 0). */
  aboveMin?: boolean;
  max?: number;
  /** Names the range instead of "a whole number" (`a number of workers from 1 to 64`). */
  noun?: string;
}

/** The rule in words: "a whole number ≥ 1", "a number > 0", "a port from 0 to 65535". */
function expectation(rule: NumberRule): string {
  const noun = rule.noun ?? (rule.integer ? 'a whole number' : 'a number');
  if (rule.max !== undefined) return `${noun} from ${rule.min} to ${rule.max}`;
  return `${noun} ${rule.aboveMin ? '>' : '≥'} ${rule.min}`;
}

/** `value` as a number under `rule`, else a UsageError naming `flag`, the rule and the value. */
export function parseNumber(flag: string, value: string, rule: NumberRule): number {
  // A flag where the number should be: the user left the value out.
  if (/^--?[a-z]/i.test(value)) throw swallowedFlagError(flag, value);
  const n = Number(value);
  const ok =
    value.trim() !== '' &&
    Number.isFinite(n) &&
    (!rule.integer || Number.isInteger(n)) &&
    (rule.aboveMin ? n > rule.min : n >= rule.min) &&
    (rule.max === undefined || n <= rule.max);
  if (!ok) throw new UsageError(`${flag} expects ${expectation(rule)}, got ${JSON.stringify(value)}`);
  return n;
}

/** Whole numbers ≥ 1: counts of iterations, workers, runs. */
export const COUNT: NumberRule = { integer: true, min: 1 };
/** Whole numbers ≥ 0. */
export const WHOLE: NumberRule = { integer: true, min: 0 };
/** Numbers > 0: dollars, seconds. */
export const POSITIVE: NumberRule = { integer: false, min: 0, aboveMin: true };
/** Numbers ≥ 0 (seconds where 0 means "no limit"). */
export const NON_NEGATIVE: NumberRule = { integer: false, min: 0 };
/** A TCP port; 0 is "a free one". */
export const PORT: NumberRule = { integer: true, min: 0, max: 65535, noun: 'a port' };

/** An option whose value is parsed by `rule` as commander reads it: a bad value is a UsageError. */
export function numberOption<Usage extends string>(flags: Usage, description: string, rule: NumberRule) {
  const option = new Option(flags, description);
  const name = option.long ?? option.short ?? flags;
  return option.argParser((value: string) => parseNumber(name, value, rule));
}
