import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT, environmentReference } from '../../../../src/config/reference/environment.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
/** Names that look like variables but are constants of the code, or another loop's words (frankbria's status block). */
const NOT_VARIABLES = new Set(['RALPH_DIR', 'RALPH_BIN_DIR', 'RALPH_ERROR_CODES', 'RALPH_STATUS']);

/** Every `RALPH_*` name the source mentions. */
function namesInSource(): Set<string> {
  const names = new Set<string>();
  const src = join(ROOT, 'src');
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')))
    for (const m of readFileSync(join(src, file), 'utf8').matchAll(/\bRALPH_[A-Z0-9_]*[A-Z0-9]\b/g))
      if (!NOT_VARIABLES.has(m[0])) names.add(m[0]);
  return names;
}

describe('the environment reference (docs/reference/environment.md)', () => {
  it('lists every RALPH_* variable the source reads or sets', () => {
    const listed = new Set(ENVIRONMENT.map((v) => v.name));
    const missing = [...namesInSource()].filter(
      (n) => !listed.has(n) && !(n.startsWith('RALPH_FAULT_') && listed.has('RALPH_FAULT_*')),
    );
    expect(missing, 'add each to src/config/reference/environment.ts, then npm run docs').toEqual([]);
    // And names nothing the source does not know.
    const known = namesInSource();
    expect(ENVIRONMENT.filter((v) => !v.name.endsWith('*') && !known.has(v.name)).map((v) => v.name)).toEqual(
      [],
    );
  });

  it('is the committed page, as npm run docs writes it', () => {
    expect(readFileSync(join(ROOT, 'docs', 'reference', 'environment.md'), 'utf8')).toBe(
      environmentReference(),
    );
  });
});
