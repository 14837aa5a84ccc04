import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RALPH_ERROR_CODES, RalphError, type RalphErrorCode } from '../../src/index.ts';
import { ROOT } from '../helpers/workspace.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const files = sources(join(ROOT, 'src')).map((path) => ({ path, text: readFileSync(path, 'utf8') }));

/**
 * The codes src/ gives a RalphError: the quoted words of the first argument of `new RalphError(`
 * and of `super(` in its subclasses (a ternary names two), and constants declared as a code.
 */
function codesUsed(): Map<string, string> {
  const used = new Map<string, string>();
  const call = /(?:new RalphError|super)\(\s*((?:[^,'`]|'[a-z_]+')*?'[a-z_]+'(?:[^,'`]|'[a-z_]+')*?),/g;
  const constant = /=\s*'([a-z_]+)'\s+satisfies RalphErrorCode/g;
  for (const { path, text } of files) {
    for (const m of text.matchAll(call))
      for (const q of (m[1] ?? '').matchAll(/'([a-z_]+)'/g)) used.set(q[1] as string, path);
    for (const m of text.matchAll(constant)) used.set(m[1] as string, path);
  }
  return used;
}

describe('RalphErrorCode', () => {
  it('lists every code src/ uses, each once, and no code nothing uses', () => {
    const listed = new Set<string>(RALPH_ERROR_CODES);
    expect(listed.size).toBe(RALPH_ERROR_CODES.length);
    const used = codesUsed();
    const unlisted = [...used].filter(([code]) => !listed.has(code)).map(([c, at]) => `${c} (${at})`);
    expect(unlisted).toEqual([]);
    const unused = RALPH_ERROR_CODES.filter((code) => !used.has(code));
    expect(unused).toEqual([]);
  });

  it('keeps the codes tests and users rely on, and the merged synonyms are gone', () => {
    for (const code of ['usage', 'config_invalid', 'fs_error', 'git_push_failed', 'lock_held', 'preflight'])
      expect(RALPH_ERROR_CODES).toContain(code);
    for (const synonym of [
      'not_a_repo',
      'file_lock_failed',
      'file_locked',
      'agent_missing',
      'config_missing',
      'prompt_missing',
    ])
      expect(RALPH_ERROR_CODES).not.toContain(synonym);
  });

  it('is the type of RalphError.code', () => {
    const e = new RalphError('no_question', 'nothing waits');
    const code: RalphErrorCode = e.code;
    expect(code).toBe('no_question');
    // @ts-expect-error a code outside the union does not compile
    expect(new RalphError('no_such_code', 'x').code).toBe('no_such_code');
  });
});
