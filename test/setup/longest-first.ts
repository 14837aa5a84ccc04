import { readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order `npm test` starts its files in, so a clean clone (no vitest duration cache) does not
 * start a minute-long file last and wait for it alone: the files that start processes go longest
 * first by the committed table `file-durations.json` (refresh it with `node
 * scripts/file-durations.mjs <vitest json report>`), files the table does not know yet before them,
 * larger first, and the in-process tiers last, where their many short files even out the two
 * workers' ends.
 */

/** The in-process tiers (pure functions, commands through runCli): no process of their own. */
export const IN_PROCESS_TIERS = ['test/unit', 'test/cli'];

const ROOT = join(import.meta.dirname, '..', '..');

/** Seconds each file took in a full run, by its path from the repository root. */
const SECONDS: Record<string, number> = JSON.parse(
  readFileSync(join(import.meta.dirname, 'file-durations.json'), 'utf8'),
).seconds;

/** The file's path from the repository root, with `/`. */
const pathOf = (spec: TestSpecification): string => relative(ROOT, spec.moduleId).split(sep).join('/');

const inProcess = (path: string): boolean => IN_PROCESS_TIERS.some((dir) => path.startsWith(`${dir}/`));

/** Sort key: [band, weight]; a lower band starts first, then a higher weight. */
function rank(path: string): [number, number] {
  if (inProcess(path)) return [2, 0];
  const seconds = SECONDS[path];
  if (seconds === undefined) return [0, statSync(join(ROOT, path)).size];
  return [1, seconds];
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // The in-process tiers keep vitest's own order: isolated files first, one module graph after.
    const base = await super.sort(files);
    const keyed = base.map((spec, index) => ({ spec, index, path: pathOf(spec) }));
    return keyed
      .map((x) => ({ ...x, rank: rank(x.path) }))
      .sort((a, b) => {
        if (a.rank[0] !== b.rank[0]) return a.rank[0] - b.rank[0];
        if (a.rank[0] === 2) return a.index - b.index;
        return b.rank[1] - a.rank[1] || a.path.localeCompare(b.path) || a.index - b.index;
      })
      .map((x) => x.spec);
  }
}
