import { z } from 'zod';

/** Unwraps optional/default/nullable wrappers so the structural schema underneath can be read. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (;;) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodDefault
    ) {
      current = current.unwrap() as z.ZodType;
    } else {
      return current;
    }
  }
}

/** The keys an object at `path` inside `schema` accepts (records are traversed by their value type). */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current = unwrap(schema);
  for (const segment of path) {
    if (current instanceof z.ZodObject) {
      const next = (current.shape as Record<string, z.ZodType>)[String(segment)];
      if (next === undefined) return [];
      current = unwrap(next);
    } else if (current instanceof z.ZodRecord) {
      current = unwrap(current.valueType as z.ZodType);
    } else if (current instanceof z.ZodArray) {
      current = unwrap(current.element as z.ZodType);
    } else {
      return [];
    }
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}
