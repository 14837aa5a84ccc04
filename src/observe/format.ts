import type { RepoRecord } from '../state/iteration-record-shape.ts';

/** `1,234,567`: en-US digit grouping. */
export function formatNumber(n: number): string {
  // Integers (token counts) are grouped by hand: the first toLocaleString loads ICU's number data,
  // several milliseconds before the first agent starts.
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
  return n.toLocaleString('en-US');
}

/** A measured figure (a metric's value): at most 6 significant digits, no trailing zeros. */
export function formatFigure(n: number): string {
  return String(Number(n.toPrecision(6)));
}

export function formatCost(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/**
 * A stop as one phrase: `reason — message`, or the message alone when it already names the reason
 * (`interrupted (Ctrl-C …)`, `stale loop: …`, `reached max_iterations (10)`): no line says it twice.
 */
export function stopText(reason: string, message: string | null | undefined, separator = ' — '): string {
  if (!message) return reason;
  const text = message.toLowerCase();
  const name = reason.toLowerCase();
  const named = text.includes(name) || text.includes(name.replace(/_/g, ' '));
  return named ? message : `${reason}${separator}${message}`;
}

/** `haiku $0.0100 · opus $0.4000`: a model ladder's spend per model, in the order the run used them. */
export function spendByModel(costByModel: Record<string, number>): string {
  return Object.entries(costByModel)
    .map(([model, usd]) => `${model} ${formatCost(usd)}`)
    .join(' · ');
}

/**
 * One repository's part of an iteration (a record's `repos`), as `ralph explain` and the dashboard
 * show it: `api (api): committed 1a2b3c4 · tests ✓ · 2 file(s)`.
 */
export function repoSummary(repo: RepoRecord): string {
  const tests = repo.gates.tests;
  const parts = [
    repo.rollback
      ? `rolled back to ${repo.rollback.to.slice(0, 7)}, kept in ${repo.rollback.ref}`
      : repo.commit
        ? `committed ${repo.commit.slice(0, 7)}`
        : 'not committed',
    ...(tests ? [`tests ${tests.passed ? '✓' : `✗ (exit ${tests.exit_code})`}`] : []),
    `${repo.files.length} file(s)`,
    ...(repo.push_error ? [`push failed: ${repo.push_error}`] : []),
  ];
  return `${repo.name} (${repo.path}): ${parts.join(' · ')}`;
}
