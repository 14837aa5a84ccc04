/** A trigger of just `*` is a catch-all: it matches every topic, whatever its segment count. */
export const CATCH_ALL = '*';

const WILDCARD = '*';

/**
 * True when `topic` matches the trigger `pattern`: the exact topic, or a dotted pattern where a
 * `*` segment matches exactly one segment (`work.*` matches `work.propose`, not `work` nor
 * `work.a.b`); a lone `*` matches any topic. A `*` inside a segment (`work*`) is a literal.
 */
export function topicMatches(pattern: string, topic: string): boolean {
  if (pattern === CATCH_ALL) return true;
  if (!pattern.includes(WILDCARD)) return pattern === topic;
  const p = pattern.split('.');
  const t = topic.split('.');
  return p.length === t.length && p.every((segment, i) => segment === WILDCARD || segment === t[i]);
}

/** True when some topic matches both patterns (segment-wise; a lone `*` overlaps everything). */
export function patternsOverlap(a: string, b: string): boolean {
  if (a === CATCH_ALL || b === CATCH_ALL) return true;
  const sa = a.split('.');
  const sb = b.split('.');
  return sa.length === sb.length && sa.every((s, i) => s === sb[i] || s === WILDCARD || sb[i] === WILDCARD);
}

/**
 * How specific a trigger is: its number of literal segments, and -1 for the catch-all. Two
 * triggers matching the same topic have the same segment count, so the one with more literal
 * segments (an exact topic above all) is the more specific.
 */
export function triggerSpecificity(pattern: string): number {
  if (pattern === CATCH_ALL) return -1;
  return pattern.split('.').filter((s) => s !== WILDCARD).length;
}

/** A topic both patterns match (a `*` segment becomes `any`), or undefined when they do not overlap. */
export function overlapWitness(a: string, b: string): string | undefined {
  if (!patternsOverlap(a, b)) return undefined;
  if (a === CATCH_ALL && b === CATCH_ALL) return 'any';
  const concrete = (p: string) =>
    p
      .split('.')
      .map((s) => (s === WILDCARD ? 'any' : s))
      .join('.');
  if (a === CATCH_ALL) return concrete(b);
  if (b === CATCH_ALL) return concrete(a);
  const sb = b.split('.');
  return a
    .split('.')
    .map((s, i) => (s !== WILDCARD ? s : sb[i] !== WILDCARD ? sb[i]! : 'any'))
    .join('.');
}
