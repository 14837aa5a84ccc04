import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moveAside } from '../../src/state/io/move-aside.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

describe('moveAside', () => {
  it('moves to the name asked for when it is free, making its directory', () => {
    const dir = makeWorkspace({ 'a.txt': 'a\n' });
    const to = join(dir, 'deep', 'down', 'a.txt');
    expect(moveAside(join(dir, 'a.txt'), to)).toBe(to);
    expect(readFileSync(to, 'utf8')).toBe('a\n');
  });

  it('takes the first free numbered name and leaves what held the others untouched', () => {
    const dir = makeWorkspace({ 'a.txt': 'a\n', 'b-2/x': 'planted\n' });
    mkdirSync(join(dir, 'b'));
    const where = moveAside(join(dir, 'a.txt'), join(dir, 'b'));
    expect(where).toBe(join(dir, 'b-3'));
    expect(readFileSync(where, 'utf8')).toBe('a\n');
    expect(readFileSync(join(dir, 'b-2', 'x'), 'utf8')).toBe('planted\n');
    expect(existsSync(join(dir, 'a.txt'))).toBe(false);
  });

  it('past every numbered name, a pid-and-time name', () => {
    const dir = makeWorkspace({ 'a.txt': 'a\n' });
    writeFileSync(join(dir, 'b'), '');
    for (let i = 2; i <= 21; i += 1) writeFileSync(join(dir, `b-${i}`), '');
    const where = moveAside(join(dir, 'a.txt'), join(dir, 'b'));
    expect(where.startsWith(join(dir, `b-${process.pid}-`))).toBe(true);
    expect(readFileSync(where, 'utf8')).toBe('a\n');
  });
});
