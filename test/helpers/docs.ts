import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './workspace.ts';

/** Every file under `dir` whose name passes `match`, at any depth (node_modules skipped). */
export function filesUnder(dir: string, match: (name: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : filesUnder(path, match);
    return match(name) ? [path] : [];
  });
}

/** The documentation: README.md, CONTRIBUTING.md and every page of docs/ (absolute paths). */
export function docPages(): string[] {
  return [
    join(ROOT, 'README.md'),
    join(ROOT, 'CONTRIBUTING.md'),
    ...filesUnder(join(ROOT, 'docs'), (n) => n.endsWith('.md')),
  ];
}

/** Markdown without its fenced code blocks (their lines kept empty, so line numbers hold). */
function withoutFences(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker !== undefined) fence = marker;
      else if (fence !== undefined && marker?.startsWith(fence)) fence = undefined;
      else if (fence === undefined) return line;
      return '';
    })
    .join('\n');
}

/** One inline link or image of a page: its target as written and its line. */
export interface DocLink {
  target: string;
  line: number;
}

/** The inline links and images of a page, outside code blocks and code spans. */
export function linksOf(markdown: string): DocLink[] {
  const lines = withoutFences(markdown).split('\n');
  return lines.flatMap((text, i) =>
    [
      ...text
        .replace(/`[^`]*`/g, '')
        .matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g),
    ].map((m) => ({ target: m[1] as string, line: i + 1 })),
  );
}

/** GitHub's anchor for a heading text: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page's headings give, numbered as GitHub numbers repeats (`x`, `x-1`, …). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of withoutFences(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = anchorOf(heading);
    const n = seen.get(base) ?? 0;
    anchors.add(n === 0 ? base : `${base}-${n}`);
    seen.set(base, n + 1);
  }
  return anchors;
}
