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

/** The topic the loop publishes first in hats mode when neither starting key is set. */
export const DEFAULT_START = 'task.start';

/**
 * The first event of a run with hats: `starting_event`, else the first exact trigger of
 * `starting_hat` (ralph-orchestrator's older key), else `task.start`.
 */
export function startingTopic(config: RalphConfig): string {
  const { starting_event: event, starting_hat: hatId } = config.event_loop;
  if (event !== undefined) return event;
  const hat = hatId === undefined ? undefined : config.hats[hatId];
  return hat?.triggers.find((t) => !t.includes('*')) ?? DEFAULT_START;
}

/** `starting_hat` names a hat with an exact trigger, and is not combined with `starting_event`. */
function startingHatIssues(config: RalphConfig): HatIssue[] {
  const { starting_event: event, starting_hat: hatId } = config.event_loop;
  if (hatId === undefined) return [];
  const path = ['event_loop', 'starting_hat'];
  if (event !== undefined)
    return [
      {
        path,
        message:
          'set starting_event or starting_hat, not both (starting_event wins in ralph-orchestrator; remove one)',
      },
    ];
  const hat = config.hats[hatId];
  if (hat === undefined) {
    const ids = Object.keys(config.hats);
    const suggestion = closestMatch(hatId, ids);
    return [
      {
        path,
        message: `starting_hat "${hatId}" is not a hat of this config${suggestion ? ` — did you mean "${suggestion}"?` : ids.length > 0 ? ` (hats: ${ids.join(', ')})` : ' (it has no hats:)'}`,
      },
    ];
  }
  if (!hat.triggers.some((t) => !t.includes('*')))
    return [
      {
        path,
        message: `hat "${hatId}" has no exact trigger to start with; set event_loop.starting_event to a topic it handles`,
      },
    ];
  return [];
}

/**
 * What a config's hats allow but never do (pure): a hat without triggers. ralph-orchestrator loads
 * such a config (its `ralph.pi.yml` has one), so Ralph says it rather than refusing it.
 */
export function hatConfigWarnings(config: RalphConfig): HatIssue[] {
  return Object.entries(config.hats)
    .filter(([, hat]) => hat.triggers.length === 0)
    .map(([id]) => ({
      path: ['hats', id, 'triggers'],
      message: `hat "${id}" has no triggers, so no event can activate it and it never runs; list the topics it handles`,
    }));
}

/**
 * Checks the hats of a schema-valid config (pure): ambiguous triggers across hats,
 * `default_publishes` outside `publishes`, and a `starting_event` no hat triggers on.
 */
export function hatConfigIssues(config: RalphConfig): HatIssue[] {
  const issues: HatIssue[] = [];
  const hats = Object.entries(config.hats);

  hats.forEach(([id, hat], h) => {
    // A file's import is resolved as the file is read; one left here came from --set, after that.
    if (hat.import !== undefined)
      issues.push({
        path: ['hats', id, 'import'],
        message: `import is read from a config file: write hats.${id}.import in ralph.yml (or the -H file), not with --set`,
      });
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

  issues.push(...startingHatIssues(config));
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
