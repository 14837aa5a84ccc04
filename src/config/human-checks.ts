import type { HatIssue } from './hat-checks.ts';
import { approvalPoints, type RalphConfig } from './schema.ts';

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
