import type { HatIssue } from './hat-checks.ts';
import type { ApprovalPointName, RalphConfig } from './schema.ts';

// The human settings read from a resolved config, and the checks on them. Without zod: the loop
// reads them on `ralph run`'s start, where the schema is not loaded when the config is cached.

/**
 * Review points that could never fire are a mistake, not a silent no-op: `before_commit` needs
 * `git.commit`, `before_push` needs `git.push`.
 */
export function humanConfigIssues(config: RalphConfig): HatIssue[] {
  const points = approvalPoints(config);
  const issues: HatIssue[] = [];
  const where = (point: string): (string | number)[] => {
    const list = config.gates.approval;
    return Array.isArray(list) ? ['gates', 'approval', list.indexOf(point as never)] : ['gates', 'approval'];
  };
  if (points.includes('before_commit') && !config.git.commit)
    issues.push({
      path: where('before_commit'),
      message:
        'before_commit needs git.commit: true (Ralph commits nothing otherwise); turn it on or remove the point',
    });
  if (points.includes('before_push') && !config.git.push)
    issues.push({
      path: where('before_push'),
      message:
        'before_push needs git.push: true (Ralph pushes nothing otherwise); turn it on or remove the point',
    });
  return issues;
}

/** The review points of `gates.approval` as a list. */
export function approvalPoints(config: Pick<RalphConfig, 'gates'>): ApprovalPointName[] {
  const a = config.gates.approval;
  return a === undefined ? [] : Array.isArray(a) ? a : [a];
}

/**
 * Seconds to wait for a human's answer or approval: `RObot.timeout_seconds` while Telegram is on
 * (ralph-orchestrator's key), else `human.timeout_seconds`; 0 is no time limit.
 */
export function humanTimeoutSeconds(config: Pick<RalphConfig, 'human' | 'RObot'>): number {
  const robot = config.RObot;
  return robot.enabled && robot.timeout_seconds !== undefined
    ? robot.timeout_seconds
    : config.human.timeout_seconds;
}

/** The channel a progress note reaches a human on: Telegram with `RObot` on, else none (recorded only). */
export function humanChannel(config: Pick<RalphConfig, 'RObot'>): 'telegram' | 'none' {
  return config.RObot.enabled ? 'telegram' : 'none';
}
