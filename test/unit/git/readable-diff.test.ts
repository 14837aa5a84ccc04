import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundDiff } from '../../../src/git/readable-diff.ts';

const section = (path: string, body: string) =>
  `diff --git a/${path} b/${path}\nindex 1111111..2222222 100644\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n${body}`;

describe('boundDiff', () => {
  it('keeps text files and a leading --stat as they are', () => {
    const diff = ` a.ts | 2 +-\n 1 file changed\n\n${section('a.ts', '-old\n+new\n')}`;
    expect(boundDiff(diff)).toBe(diff);
  });

  it('names a file whose diff holds NUL bytes as binary, without its bytes, and keeps the next file', () => {
    const diff = `${section('img.bin', '-PNG\0\0\n+PNG\0\x01\n')}${section('a.ts', '+x\n')}`;
    const out = boundDiff(diff);
    expect(out).toContain('diff --git a/img.bin b/img.bin\n');
    expect(out).toContain('(binary: it holds NUL bytes; not shown)');
    expect(out).not.toContain('\0');
    expect(out).toContain(section('a.ts', '+x\n'));
  });

  it("cuts a long file's diff at a line and says how much was left out", () => {
    const body = Array.from({ length: 100 }, (_, i) => `+line ${i}\n`).join('');
    const out = boundDiff(section('big.ts', body), 200);
    expect(out.length).toBeLessThan(300);
    expect(out).toMatch(/… \(\d+ more characters of this file's diff cut; read the file\)\n$/);
    expect(
      out
        .split('\n')
        .slice(0, -2)
        .every((l) => !l.startsWith('+line') || /^\+line \d+$/.test(l)),
    ).toBe(true);
  });

  it('never lets a NUL through nor a file past its bound (plus its note), whatever the diff', () => {
    const body = fc.string().map((s) => `+${s}\n`);
    const file = fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.array(body, { maxLength: 20 }));
    fc.assert(
      fc.property(fc.array(file, { maxLength: 6 }), fc.integer({ min: 50, max: 500 }), (files, max) => {
        const out = boundDiff(files.map(([p, lines]) => section(p, lines.join(''))).join(''), max);
        expect(out).not.toContain('\0');
        for (const part of out.split(/^(?=diff --git )/m)) expect(part.length).toBeLessThanOrEqual(max + 120);
        for (const [p] of files) expect(out).toContain(`diff --git a/${p} b/${p}\n`);
      }),
    );
  });
});
