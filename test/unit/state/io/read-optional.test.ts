import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOptional } from '../../../../src/state/io/read-optional.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

describe('readOptional', () => {
  it("gives a file's text and undefined for a missing file, whichever failures the caller absorbs", () => {
    const dir = makeWorkspace();
    writeFileSync(join(dir, 'notes.md'), 'héllo\n');
    for (const unreadable of ['absent', 'throw'] as const) {
      expect(readOptional(join(dir, 'notes.md'), unreadable)).toBe('héllo\n');
      expect(readOptional(join(dir, 'missing.md'), unreadable)).toBeUndefined();
    }
  });

  it('treats an unreadable path as absent only when asked to, else lets the error through', () => {
    const dir = join(makeWorkspace(), 'a-directory');
    mkdirSync(dir);
    expect(readOptional(dir, 'absent')).toBeUndefined();
    expect(() => readOptional(dir, 'throw')).toThrow(expect.objectContaining({ code: 'EISDIR' }));
  });
});
