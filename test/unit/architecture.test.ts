import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/workspace.ts';

const SRC = join(ROOT, 'src');
// Layers below the CLI: no console I/O, no process exit, no imports of the CLI or UIs.
const CORE = ['engine', 'routing', 'backends', 'process', 'state', 'config', 'observe', 'git', 'demo'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('architecture', () => {
  const core = CORE.flatMap((d) => files(join(SRC, d)));

  it('covers the core layers', () => {
    expect(core.length).toBeGreaterThan(20);
  });

  it.each(core.map((f) => [relative(SRC, f), f]))(
    '%s does no console I/O, never exits, never imports the CLI',
    (_name, file) => {
      const text = readFileSync(file, 'utf8');
      expect(text).not.toMatch(/\bconsole\./);
      expect(text).not.toMatch(/process\.exit\b/);
      expect(text).not.toMatch(/process\.(stdout|stderr)\.write/);
      expect(text).not.toMatch(/from '\.\.\/cli\//);
    },
  );
});
