import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { table } from '../../../src/cli/agent-tools/tool-render.ts';
import { breakAtWords, clean, clip, columns, padColumns, wrapLines } from '../../../src/tui/text-fit.ts';

// Text measured in terminal columns (issue 36): CJK and emoji take two, graphemes are never split.

const chinese = '修复登录页面的错误并添加单元测试以及文档更新';

describe('text width', () => {
  it('clips wide text to the columns asked for, not the code points', () => {
    const cut = clip(chinese, 20);
    expect(stringWidth(cut)).toBeLessThanOrEqual(20);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut).toBe('修复登录页面的错误…');
    expect(clip('ok 👍🏽 done 🎉🎉🎉🎉', 10)).toBe('ok 👍🏽 don…');
    // A family emoji (one grapheme of several code points) is kept whole or dropped whole.
    expect(clip('👨‍👩‍👧‍👦👨‍👩‍👧‍👦', 3)).toBe('👨‍👩‍👧‍👦…');
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip('abc', 3)).toBe('abc');
  });

  it('wraps wide text into rows that fit, losing nothing but the spaces at a cut', () => {
    const rows = breakAtWords(chinese, 10, 10);
    for (const r of rows) expect(columns(r)).toBeLessThanOrEqual(10);
    expect(rows.join('')).toBe(chinese);
    // A character wider than the row gets a row of its own rather than looping.
    expect(breakAtWords('宽宽', 1, 1)).toEqual(['宽', '宽']);
  });

  it('keeps every wrapped line within the width for any mix of ASCII, CJK and emoji', () => {
    const piece = fc.constantFrom('a', 'word', ' ', '修复', '🎉', '👨‍👩‍👧‍👦', 'é', 'ｶﾞ');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 4, max: 60 }), (parts, width) => {
        const text = parts.join('');
        const lines = wrapLines([text], width);
        for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(width);
        const [first = '', ...more] = lines;
        expect([first, ...more.map((m) => m.slice(2))].join('').replace(/ /g, '')).toBe(
          text.replace(/ /g, ''),
        );
        expect(stringWidth(clip(text, width))).toBeLessThanOrEqual(width);
      }),
    );
  });

  it('removes OSC-8 hyperlinks and colours from agent output, keeping the link text', () => {
    const link = '\u001b]8;;https://example.com/pr/1\u001b\\the PR\u001b]8;;\u001b\\';
    expect(clean(`see ${link} now`)).toBe('see the PR now');
    expect(clean('\u001b]8;;https://x\u0007x\u001b]8;;\u0007')).toBe('x');
    expect(clean('\u001b[31mred\u001b[0m\tx\u0007')).toBe('red  x');
  });

  it('pads tables by columns so wide titles stay aligned', () => {
    expect(padColumns('修复', 6)).toBe('修复  ');
    const text = table(
      ['ID', 'TITLE', 'PRI'],
      [
        ['t-1', '修复登录', '1'],
        ['t-2', 'fix login', '2'],
      ],
    );
    const at = text
      .split('\n')
      .slice(0, 3)
      .map((l) => stringWidth(l.slice(0, l.lastIndexOf(' ') + 1)));
    expect(new Set(at).size).toBe(1);
  });
});
