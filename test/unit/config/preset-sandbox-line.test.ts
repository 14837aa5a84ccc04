import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { sandboxOnText } from '../../../src/config/preset-init.ts';
import { ROOT } from '../../helpers/workspace.ts';

// `ralph init` turns on the presets' commented `# sandbox: on` line where bubblewrap works: that
// line and no other changes, and the file then says `sandbox: on`.

const presets = readdirSync(join(ROOT, 'presets'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

describe('sandboxOnText', () => {
  it.each(presets)('preset %s: recommends on in a comment (off as shipped), on once uncommented', (name) => {
    const text = readFileSync(join(ROOT, 'presets', name, 'ralph.yml'), 'utf8');
    expect(parse(text).sandbox).toBeUndefined();
    expect(text).toMatch(/# The sandbox, recommended:.*\n(#.*\n)*# sandbox: on\n/);
    const on = sandboxOnText(text);
    expect(parse(on ?? '').sandbox).toBe('on');
    const changed = (on ?? '').split('\n').filter((line, i) => line !== text.split('\n')[i]);
    expect(changed).toEqual(['sandbox: on']);
  });

  it('leaves a file without the line alone, and changes only that line where it is', () => {
    const line = fc.string().filter((s) => !s.includes('\n') && s !== '# sandbox: on');
    fc.assert(
      fc.property(fc.array(line), fc.array(line), (before, after) => {
        expect(sandboxOnText([...before, ...after].join('\n'))).toBeUndefined();
        const text = [...before, '# sandbox: on', ...after].join('\n');
        expect(sandboxOnText(text)).toBe([...before, 'sandbox: on', ...after].join('\n'));
      }),
    );
  });
});
