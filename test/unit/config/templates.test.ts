import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { presetSource } from '../../../src/config/presets.ts';
import { projectNames, TEMPLATES } from '../../../src/config/templates.ts';
import { TEMPLATES_DIR } from '../../../src/paths-package.ts';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

describe('project templates', () => {
  it('write every file stored in templates/<name>/, and only those', () => {
    for (const t of TEMPLATES)
      expect(t.files.map(presetSource).sort(), t.name).toEqual(
        filesUnder(join(TEMPLATES_DIR, t.name)).sort(),
      );
  });

  it('name the package after the directory, and the Python module as an identifier', () => {
    expect(projectNames('/x/My Words')).toEqual({ name: 'my-words', module: 'my_words' });
    expect(projectNames('/x/2fast.io')).toEqual({ name: '2fast.io', module: '_2fast_io' });
    expect(projectNames('/x/---')).toEqual({ name: 'project', module: 'project' });
  });
});
