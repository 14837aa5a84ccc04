import type { HatConfig, RalphConfig } from './schema.ts';
import { closestMatch } from './suggest.ts';
import { overlapWitness, topicMatches, triggerSpecificity } from './topic-match.ts';

/** One problem in the hats of a schema-valid config; `path` is where it sits in the YAML. */
export interface HatIssue {
  path: (string | number)[];
  message: string;
}

function defaultPublishesList(hat: HatConfig): { topic: string; path: (string | number)[] }[] {
  const d = hat.default_publishes;
  if (d === undefined) return [];
  return Array.isArray(d) ? d.map((topic, i) => ({ topic, path: [i] })) : [{ topic: d, path: [] }];
}

/**
 * The message when two hats' triggers would make routing depend on config order, or undefined.
 * Overlap is fine when one trigger is more specific (an exact topic over `work.*`, anything over
 * `*`): routing always prefers it. Identical triggers, or overlapping patterns of equal
 * specificity (`a.*.c` and `a.b.*`), are ambiguous.
 */
function ambiguity(later: string, earlier: string, earlierHat: string): string | undefined {
  if (later === earlier) {
    return `trigger "${later}" is also a trigger of hat "${earlierHat}"; each topic must route to exactly one hat`;
  }
  const witness = overlapWitness(later, earlier);
  if (witness === undefined || triggerSpecificity(later) !== triggerSpecificity(earlier)) return undefined;
  return (
    `trigger "${later}" overlaps trigger "${earlier}" of hat "${earlierHat}" (both match "${witness}") ` +
    'and neither is more specific; each topic must route to exactly one hat'
  );
}

/**
 * Checks the hats of a schema-valid config (pure): ambiguous triggers across hats, hats without
 * triggers, `default_publishes` outside `publishes`, and a `starting_event` no hat triggers on.
 */
export function hatConfigIssues(config: RalphConfig): HatIssue[] {
  const issues: HatIssue[] = [];
  const hats = Object.entries(config.hats);

  hats.forEach(([id, hat], h) => {
    if (hat.triggers.length === 0) {
      issues.push({
        path: ['hats', id, 'triggers'],
        message: `hat "${id}" has no triggers, so no event can activate it; list the topics it handles`,
      });
    }
    hat.triggers.forEach((trigger, t) => {
      for (const [otherId, other] of hats.slice(0, h)) {
        const message = other.triggers
          .map((earlier) => ambiguity(trigger, earlier, otherId))
          .find((m) => m !== undefined);
        if (message !== undefined) {
          issues.push({ path: ['hats', id, 'triggers', t], message });
          return;
        }
      }
    });
    if (hat.publishes.length > 0) {
      for (const { topic, path } of defaultPublishesList(hat)) {
        if (hat.publishes.includes(topic)) continue;
        issues.push({
          path: ['hats', id, 'default_publishes', ...path],
          message: `default_publishes "${topic}" is not in this hat's publishes (${hat.publishes.join(', ')}); add it there or use one of those`,
        });
      }
    }
  });

  const start = config.event_loop.starting_event;
  if (start !== undefined && hats.length > 0) {
    const triggers = hats.flatMap(([, hat]) => hat.triggers);
    if (!triggers.some((trigger) => topicMatches(trigger, start))) {
      const suggestion = closestMatch(start, triggers);
      issues.push({
        path: ['event_loop', 'starting_event'],
        message:
          `starting_event "${start}" is not a trigger of any hat, so the first iteration would have no hat` +
          (suggestion
            ? ` — did you mean "${suggestion}"?`
            : triggers.length > 0
              ? ` (triggers: ${[...new Set(triggers)].join(', ')})`
              : ''),
      });
    }
  }
  return issues;
}
