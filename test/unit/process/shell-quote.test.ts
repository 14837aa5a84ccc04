import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellCommand, shellQuote } from '../../../src/process/shell-quote.ts';

/**
 * Reads one POSIX shell word made of bare characters, '…' single-quoted runs and \x escapes
 * (the subset shellQuote produces), as `sh` would. Throws on anything outside that subset.
 */
function unquoteWord(word: string): string {
  let out = '';
  let i = 0;
  while (i < word.length) {
    const ch = word[i]!;
    if (ch === "'") {
      const end = word.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote in ${word}`);
      out += word.slice(i + 1, end);
      i = end + 1;
    } else if (ch === '\\') {
      if (i + 1 >= word.length) throw new Error(`dangling backslash in ${word}`);
      out += word[i + 1];
      i += 2;
    } else if (/[A-Za-z0-9_@%+=:,./-]/.test(ch)) {
      out += ch;
      i += 1;
    } else {
      throw new Error(`unquoted special character ${JSON.stringify(ch)} in ${word}`);
    }
  }
  return out;
}

describe('shellQuote', () => {
  it.each([
    ['', "''"],
    ['claude', 'claude'],
    ['--output-format', '--output-format'],
    ['a/b.c:d,e=f@g%h+i', 'a/b.c:d,e=f@g%h+i'],
    ['hello world', "'hello world'"],
    ["it's", "'it'\\''s'"],
    ['$HOME', "'$HOME'"],
    ['a;b', "'a;b'"],
    ['*', "'*'"],
    ['~', "'~'"],
    ['line\nbreak', "'line\nbreak'"],
    ['"double"', `'"double"'`],
    ['back`tick`', "'back`tick`'"],
  ])('shellQuote(%j) = %s', (arg, expected) => {
    expect(shellQuote(arg)).toBe(expected);
  });

  it('property: the shell reads the quoted word back as the original string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (arg) => {
        expect(unquoteWord(shellQuote(arg))).toBe(arg);
      }),
    );
  });

  it('property: safe words are not quoted', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_@%+=:,./-]+$/), (arg) => {
        expect(shellQuote(arg)).toBe(arg);
      }),
    );
  });

  it('property: the quoted word has no unquoted whitespace', () => {
    fc.assert(
      fc.property(fc.string(), (arg) => {
        const q = shellQuote(arg);
        // Walk it as sh does: '…' quotes, and outside quotes a backslash escapes one character.
        let inQuotes = false;
        let bare = '';
        for (let i = 0; i < q.length; i++) {
          const ch = q[i]!;
          if (ch === "'") inQuotes = !inQuotes;
          else if (!inQuotes && ch === '\\') i++;
          else if (!inQuotes) bare += ch;
        }
        expect(inQuotes).toBe(false);
        expect(/\s/.test(bare)).toBe(false);
      }),
    );
  });
});

describe('shellCommand', () => {
  it('joins the quoted command and arguments with spaces', () => {
    expect(shellCommand('claude', ['-p', 'fix the bug', '--output-format', 'stream-json'])).toBe(
      "claude -p 'fix the bug' --output-format stream-json",
    );
    expect(shellCommand('my agent', [])).toBe("'my agent'");
    expect(shellCommand('x', [''])).toBe("x ''");
  });

  it('property: splitting on spaces outside quotes and unquoting gives back the words', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.array(fc.string(), { maxLength: 5 }), (cmd, args) => {
        const line = shellCommand(cmd, args);
        // Split on spaces that are outside single quotes.
        const words: string[] = [];
        let current = '';
        let quoted = false;
        let escaped = false;
        for (const ch of line) {
          if (escaped) escaped = false;
          else if (ch === '\\' && !quoted) escaped = true;
          else if (ch === "'") quoted = !quoted;
          if (ch === ' ' && !quoted && !escaped) {
            words.push(current);
            current = '';
          } else current += ch;
        }
        words.push(current);
        expect(words.map(unquoteWord)).toEqual([cmd, ...args]);
      }),
    );
  });
});
