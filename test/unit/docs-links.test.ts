import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, docPages, linksOf } from '../helpers/docs.ts';
import { ROOT } from '../helpers/workspace.ts';

/** A link that leaves the repository's files: a URL, a mail address, an absolute path. */
const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/');

/** Where each relative link of the documentation points: page, line, target, resolved file, anchor. */
function relativeLinks() {
  return docPages().flatMap((page) =>
    linksOf(readFileSync(page, 'utf8'))
      .filter(({ target }) => !external(target))
      .map(({ target, line }) => {
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
        return { from: `${relative(ROOT, page)}:${line}`, target, file, anchor };
      }),
  );
}

describe('the documentation links', () => {
  it('finds the pages and their links (README, CONTRIBUTING and the docs tree)', () => {
    const pages = docPages().map((p) => relative(ROOT, p));
    expect(pages).toEqual(
      expect.arrayContaining(['README.md', 'CONTRIBUTING.md', join('docs', 'README.md')]),
    );
    expect(relativeLinks().length).toBeGreaterThan(100);
  });

  it('points every relative link to a file that exists, and every #anchor to a heading of it', () => {
    const broken = relativeLinks().flatMap(({ from, target, file, anchor }) => {
      if (!existsSync(file)) return [`${from}: ${target} (no such file)`];
      if (anchor === undefined || anchor === '') return [];
      if (statSync(file).isDirectory() || !file.endsWith('.md'))
        return [`${from}: ${target} (an anchor into a non-page)`];
      return anchorsOf(readFileSync(file, 'utf8')).has(anchor)
        ? []
        : [`${from}: ${target} (no such heading)`];
    });
    expect(broken).toEqual([]);
  });

  it('ships every file the README and the docs link to in the package (package.json files)', () => {
    const files: string[] = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).files;
    const unshipped = relativeLinks()
      .filter(({ from }) => !from.startsWith('CONTRIBUTING.md'))
      .map(({ from, file }) => ({ from, path: relative(ROOT, file).split(sep).join('/') }))
      .filter(({ path }) => !files.some((entry) => path === entry || path.startsWith(`${entry}/`)))
      .map(({ from, path }) => `${from}: ${path}`);
    expect(unshipped).toEqual([]);
  });
});

describe('README.md', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('stays short: under 180 lines, the rest is in docs/', () => {
    expect(readme.split('\n').length).toBeLessThan(180);
  });

  it('links to every reference page, so any flag, key, file or exit code is two clicks away', () => {
    const reference = join(ROOT, 'docs', 'reference');
    // cli.md and config.md are generated; they are listed even where they are not generated yet.
    const pages = new Set(['cli.md', 'config.md']);
    for (const page of docPages()) if (dirname(page) === reference) pages.add(relative(reference, page));
    const linked = new Set(linksOf(readme).map(({ target }) => target.split('#')[0]));
    const missing = [...pages].filter((page) => !linked.has(`docs/reference/${page}`));
    expect(missing).toEqual([]);
    expect(pages.size).toBeGreaterThanOrEqual(8);
  });

  it("keeps the contributors' two commands exactly", () => {
    expect(readme).toContain('npm ci && npm run demo\n');
    expect(readme).toContain('npm ci && npm test\n');
  });
});
