import { anyJson, type LineParser } from '../io/jsonl.ts';

// The few checks state.json needs, worded as zod 4 words them: `ralph run` reads the state at
// every start, and evaluating zod and building a schema with it cost 15–35 ms before the first
// agent. test/support/loop-state-zod.ts holds the zod schema these replace, and
// test/unit/state/loop-state/loop-state-schema.test.ts checks that both accept, default and reject the same files with the same messages.
// Every other record Ralph reads back (iteration records, the registry, questions, metric
// attempts, the Telegram bot's files) is checked with the same pieces, through checkedLine.

/** One problem found: where (keys and indexes) and zod's wording of it. */
export interface Problem {
  path: (string | number)[];
  message: string;
}

/** Checks a value at `path`, adding what is wrong to `problems`; returns the value to keep. */
export type Check = (value: unknown, path: (string | number)[], problems: Problem[]) => unknown;

/** A key of an object: required (a plain check), optional, or filled in when absent. */
export type Field = Check | { check: Check; absent: 'omit' | (() => unknown) };

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** What zod calls a value's type in "received …" (NaN, Infinity and -Infinity by name). */
function received(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    const ctor = (value as { constructor?: unknown }).constructor;
    if (proto !== Object.prototype && 'constructor' in value && typeof ctor === 'function') return ctor.name;
  }
  return typeof value;
}

const wrongType = (expected: string, value: unknown): string =>
  `Invalid input: expected ${expected}, received ${received(value)}`;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `z.number()` with `.int()`, `.min(n)` or `.positive()`, checked in that order. */
export function number(rules: { int?: boolean; min?: number; positive?: boolean } = {}): Check {
  return (value, path, problems) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      problems.push({ path, message: wrongType('number', value) });
      return value;
    }
    if (rules.int) {
      // Not an integer ends the checks; out of the safe range does not.
      if (!Number.isInteger(value)) {
        problems.push({ path, message: 'Invalid input: expected int, received number' });
        return value;
      }
      if (value > MAX_SAFE) problems.push({ path, message: `Too big: expected int to be <=${MAX_SAFE}` });
      else if (value < -MAX_SAFE)
        problems.push({ path, message: `Too small: expected int to be >=-${MAX_SAFE}` });
    }
    if (rules.min !== undefined && value < rules.min)
      problems.push({ path, message: `Too small: expected number to be >=${rules.min}` });
    if (rules.positive && value <= 0) problems.push({ path, message: 'Too small: expected number to be >0' });
    return value;
  };
}

/** `z.string()`, or `.min(n)` characters (code points, as zod counts them). */
export function string(min = 0): Check {
  return (value, path, problems) => {
    if (typeof value === 'string') {
      const units = value.length;
      const length = units >= min && units < min * 2 ? [...value].length : units;
      if (length < min)
        problems.push({ path, message: `Too small: expected string to have >=${min} characters` });
      return value;
    }
    problems.push({ path, message: wrongType('string', value) });
    // zod measures anything else that has a length too (an array, an object with a `length` key),
    // comparing it as JavaScript does.
    const measured =
      value === null || value === undefined ? undefined : (value as { length?: unknown }).length;
    if (min > 0 && measured !== undefined && !((measured as number) >= min))
      problems.push({
        path,
        message: Array.isArray(value)
          ? `Too small: expected array to have >=${min} items`
          : `Too small: expected unknown to be >=${min}`,
      });
    return value;
  };
}

/** `z.boolean()`. */
export const boolean: Check = (value, path, problems) => {
  if (typeof value !== 'boolean') problems.push({ path, message: wrongType('boolean', value) });
  return value;
};

/** `z.unknown()` as an object's key: anything, but the key must be there. */
export const present: Check = (value, path, problems) => {
  if (value === undefined) problems.push({ path, message: wrongType('nonoptional', value) });
  return value;
};

/** `z.literal(v)` or `z.enum([...])`. */
export function oneOf(values: readonly (string | number)[]): Check {
  const message =
    values.length === 1
      ? `Invalid input: expected ${JSON.stringify(values[0])}`
      : `Invalid option: expected one of ${values.map((v) => JSON.stringify(v)).join('|')}`;
  return (value, path, problems) => {
    if (!values.includes(value as string | number)) problems.push({ path, message });
    return value;
  };
}

/** `.nullable()`. */
export const nullable =
  (check: Check): Check =>
  (value, path, problems) =>
    value === null ? null : check(value, path, problems);

/** `.optional()`: an absent key stays absent. */
export const optional = (check: Check): Field => ({ check, absent: 'omit' });

/** `.default(v)`: an absent key gets `make()` (not checked, as zod does not). */
export const withDefault = (check: Check, make: () => unknown): Field => ({ check, absent: make });

/** `z.array(item)`: a new array of the items kept. */
export function array(item: Check): Check {
  return (value, path, problems) => {
    if (!Array.isArray(value)) {
      problems.push({ path, message: wrongType('array', value) });
      return value;
    }
    return value.map((v, i) => item(v, [...path, i], problems));
  };
}

/** `z.record(z.string(), value)`: a new object; a `__proto__` key is dropped unchecked. */
export function record(item: Check): Check {
  return (value, path, problems) => {
    if (!isObject(value)) {
      problems.push({ path, message: wrongType('record', value) });
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (key !== '__proto__') out[key] = item(value[key], [...path, key], problems);
    }
    return out;
  };
}

/**
 * `z.looseObject(shape)`: a new object with the shape's keys in its order (defaults filled in),
 * then the unknown keys as they came (but `__proto__`, which an assignment would not keep).
 */
export function looseObject(shape: Record<string, Field>): Check {
  const fields = Object.entries(shape);
  const known = new Set(Object.keys(shape));
  return (value, path, problems) => {
    if (!isObject(value)) {
      problems.push({ path, message: wrongType('object', value) });
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const [key, field] of fields) {
      const check = typeof field === 'function' ? field : field.check;
      if (!(key in value) && typeof field !== 'function') {
        if (field.absent !== 'omit') out[key] = field.absent();
        continue;
      }
      out[key] = check(value[key], [...path, key], problems);
    }
    for (const key in value) {
      if (!known.has(key) && key !== '__proto__') out[key] = value[key];
    }
    return out;
  };
}

/** The first few problems as `field: what is wrong`. */
export function describeProblems(problems: Problem[]): string {
  const list = problems.slice(0, 3).map((p) => `${p.path.join('.') || '(top level)'}: ${p.message}`);
  const more = problems.length > 3 ? `, and ${problems.length - 3} more` : '';
  return `${list.join('; ')}${more}`;
}

/** A JSON-lines parser checking each line against `shape`: its record, or `not WHAT: problems`. */
export function checkedLine<T>(shape: Check, what: string): LineParser<T> {
  return (line) => {
    const parsed = anyJson(line);
    if ('error' in parsed) return parsed;
    const problems: Problem[] = [];
    const value = shape(parsed.value, [], problems);
    return problems.length > 0
      ? { error: `not ${what}: ${describeProblems(problems)}` }
      : { value: value as T };
  };
}
