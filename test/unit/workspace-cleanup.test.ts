import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../helpers/workspace.ts';

// The fixture under every test: a workspace goes with the test that made it, no cleanup hook by hand.
describe('makeWorkspace cleans up by itself', () => {
  let madeByTest = '';
  let madeBeforeAll = '';
  beforeAll(() => {
    madeBeforeAll = makeWorkspace({ 'a.txt': 'a\n' });
  });

  it('a workspace made in a test exists while the test runs', () => {
    madeByTest = makeWorkspace({ 'dir/b.txt': 'b\n' });
    expect(existsSync(`${madeByTest}/dir/b.txt`)).toBe(true);
  });

  it('is gone once that test has finished', () => {
    expect(madeByTest).not.toBe('');
    expect(existsSync(madeByTest)).toBe(false);
  });

  it("one made in beforeAll lives for the file's tests (the setup file removes it after them)", () => {
    expect(existsSync(`${madeBeforeAll}/a.txt`)).toBe(true);
  });
});
