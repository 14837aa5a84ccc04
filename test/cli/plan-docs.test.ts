import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERACTIVE_BACKEND_NAMES } from '../../src/config/schema/backend-names.ts';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace, ROOT } from '../helpers/workspace.ts';

const PAGES = [
  ['docs', 'guide', 'solo.md'],
  ['docs', 'guide', 'spec.md'],
  ['docs', 'reference', 'backends.md'],
];

/** The backticked names before "no interactive mode known" in the sentence that says which backends plan opens. */
function namedBackends(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/\s+/g, ' ');
  const sentence = /opens (?:only )?(`claude`[^;]*);.{0,120}?no interactive mode known/.exec(text)?.[1] ?? '';
  return [...sentence.matchAll(/`([a-z-]+)`/g)].map((m) => m[1] as string);
}

describe('the docs say which backends `ralph plan` opens', () => {
  it.each(PAGES.map((p) => join(...p)))('%s names exactly the interactive backends', (page) => {
    expect(namedBackends(page).sort()).toEqual([...INTERACTIVE_BACKEND_NAMES].sort());
  });

  it('another backend stops with the message the docs quote', async () => {
    const dir = makeWorkspace({ 'ralph.yml': 'cli:\n  backend: qwen\n', 'plan.md': 'write a spec\n' });
    const r = await runCliInMemory(['plan', '--dry-run', '-P', 'plan.md', 'x'], { cwd: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no interactive mode known for backend "qwen"');
  });
});
