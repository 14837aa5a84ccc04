import { describe, expect, it } from 'vitest';
import { wantsColor } from '../../../src/cli/io.ts';

describe('wantsColor', () => {
  it('colours a terminal, not a pipe, unless told', () => {
    expect(wantsColor({}, true)).toBe(true);
    expect(wantsColor({}, false)).toBe(false);
  });

  it('FORCE_COLOR colours a pipe too (issue 36: `FORCE_COLOR=1 ralph doctor | cat` printed none), but 0 or false do not', () => {
    for (const v of ['1', '2', '3', 'true', '']) expect(wantsColor({ FORCE_COLOR: v }, false), v).toBe(true);
    for (const v of ['0', 'false', 'FALSE']) expect(wantsColor({ FORCE_COLOR: v }, true), v).toBe(false);
  });

  it('NO_COLOR always wins', () => {
    expect(wantsColor({ NO_COLOR: '1' }, true)).toBe(false);
    expect(wantsColor({ NO_COLOR: '1', FORCE_COLOR: '1' }, false)).toBe(false);
    // An empty NO_COLOR is unset (no-color.org).
    expect(wantsColor({ NO_COLOR: '' }, true)).toBe(true);
  });
});
