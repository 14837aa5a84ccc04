import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  lastNonEmptyLine,
  promiseFulfilled,
  withoutPromptEcho,
} from '../../../../src/engine/decide/completion.ts';
import { parseEventTags } from '../../../../src/state/events-log.ts';

const PROMISE = 'LOOP_COMPLETE';
const PROMPT = 'Fix the failing tests in src/.\nWhen done, say so.';

/** A single line of arbitrary text (no newline) that is not, even after trimming, the promise. */
const textLine = fc
  .string({ maxLength: 40 })
  .map((s) => s.replace(/[\r\n]/g, ' '))
  .filter((s) => !s.includes(PROMISE));

describe('lastNonEmptyLine', () => {
  it('returns undefined for empty or blank text', () => {
    expect(lastNonEmptyLine('')).toBeUndefined();
    expect(lastNonEmptyLine('\n\n  \n\t\n')).toBeUndefined();
  });

  it('skips trailing blank lines', () => {
    expect(lastNonEmptyLine('a\nb\n\n   \n')).toBe('b');
    expect(lastNonEmptyLine('only')).toBe('only');
    expect(lastNonEmptyLine('\n\nfirst\n')).toBe('first');
  });

  it('returns the line untrimmed', () => {
    expect(lastNonEmptyLine('x\n  indented  \n')).toBe('  indented  ');
  });

  it('property: equals the last element of split("\\n") that has non-whitespace', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', ' ', '\n', 'b', '\t', 'xy')), (parts) => {
        const text = parts.join('');
        const expected = text
          .split('\n')
          .filter((l) => l.trim().length > 0)
          .at(-1);
        expect(lastNonEmptyLine(text)).toBe(expected);
      }),
    );
  });
});

describe('promiseFulfilled', () => {
  describe('the promise as the last non-empty line', () => {
    it.each([
      ['bare', `Did the work.\n${PROMISE}`],
      ['with trailing blank lines', `Did the work.\n${PROMISE}\n\n   \n`],
      ['bold', `Did the work.\n**${PROMISE}**`],
      ['backticks', `Did the work.\n\`${PROMISE}\``],
      ['triple backticks on one line', `Did the work.\n\`\`\`${PROMISE}\`\`\``],
      ['promise tag', `Did the work.\n<promise>${PROMISE}</promise>`],
      ['promise tag with spaces', `Did the work.\n<promise> ${PROMISE} </promise>`],
      ['surrounding whitespace', `Did the work.\n   ${PROMISE}   `],
      ['CRLF line endings', `Did the work.\r\n${PROMISE}\r\n`],
      ['only the promise', PROMISE],
    ])('%s → true', (_name, output) => {
      expect(promiseFulfilled(output, PROMISE, PROMPT)).toBe(true);
    });
  });

  describe('the promise not on its own last line', () => {
    it.each([
      ['mentioned in prose', `I will print ${PROMISE} when everything is done.`],
      ['prose on the last line', `Progress made.\nNot yet ${PROMISE}, more to do.`],
      ['promise followed by more text', `${PROMISE}\nActually, one more thing remains.`],
      ['absent', 'Did some work.\nMore work next time.'],
      ['empty output', ''],
      ['blank output', '\n\n  \n'],
      ['a different word', 'LOOP_COMPLETED'],
      ['lowercase', PROMISE.toLowerCase()],
    ])('%s → false', (_name, output) => {
      expect(promiseFulfilled(output, PROMISE, PROMPT)).toBe(false);
    });

    it('an empty or blank promise never matches', () => {
      expect(promiseFulfilled('anything\n', '', PROMPT)).toBe(false);
      expect(promiseFulfilled('   \n', '   ', PROMPT)).toBe(false);
    });
  });

  describe('prompt echoes', () => {
    const prompt = `Do the task.\nWhen finished, end with a line containing only\n${PROMISE}`;

    it('output that merely echoes a prompt ending with the promise line → false', () => {
      expect(promiseFulfilled(prompt, PROMISE, prompt)).toBe(false);
      expect(promiseFulfilled(`${prompt}\n\n`, PROMISE, prompt)).toBe(false);
      expect(promiseFulfilled(`Working on it...\n${prompt}\n`, PROMISE, prompt)).toBe(false);
    });

    it('echo of a prompt that merely contains the promise → false', () => {
      const p = `Print ${PROMISE} when done.\n${PROMISE}\nThen stop.`;
      expect(promiseFulfilled(p, PROMISE, p)).toBe(false);
    });

    it('echo with surrounding whitespace in the prompt (trimmed before matching) → false', () => {
      expect(promiseFulfilled(prompt, PROMISE, `\n\n${prompt}\n\n`)).toBe(false);
    });

    it('echo followed by a real promise line → true', () => {
      expect(promiseFulfilled(`${prompt}\nAll tests pass.\n${PROMISE}\n`, PROMISE, prompt)).toBe(true);
      expect(promiseFulfilled(`${prompt}\n${PROMISE}`, PROMISE, prompt)).toBe(true);
    });

    it('echo followed by prose → false', () => {
      expect(promiseFulfilled(`${prompt}\nStill working.\n`, PROMISE, prompt)).toBe(false);
    });
  });

  describe('promises that contain decoration characters', () => {
    // A completion promise is any non-empty string (schema: z.string().min(1)); when the agent prints it
    // verbatim as its last line the loop must complete.
    it.each([['<promise>COMPLETE</promise>'], ['ALL DONE!'], ['Done.'], ['**FINISHED**'], ['#done']])(
      'promise %j printed verbatim as the last line → true',
      (promise) => {
        expect(promiseFulfilled(`Work finished.\n${promise}\n`, promise, PROMPT)).toBe(true);
      },
    );
  });

  describe('properties', () => {
    it('appending "\\nPROMISE\\n\\n" to arbitrary lines makes it true', () => {
      fc.assert(
        fc.property(fc.array(textLine, { maxLength: 8 }), (lines) => {
          const output = `${lines.join('\n')}\n${PROMISE}\n\n`;
          expect(promiseFulfilled(output, PROMISE, PROMPT)).toBe(true);
        }),
      );
    });

    it('any output whose last non-empty line is not the promise → false', () => {
      fc.assert(
        fc.property(
          fc.array(fc.oneof(textLine, fc.constant(PROMISE)), { maxLength: 8 }),
          textLine.filter((l) => l.trim().length > 0),
          fc.array(fc.constantFrom('', ' ', '\t'), { maxLength: 3 }),
          (before, last, blanks) => {
            const output = [...before, last, ...blanks].join('\n');
            expect(promiseFulfilled(output, PROMISE, PROMPT)).toBe(false);
          },
        ),
      );
    });

    it('echoing an arbitrary prompt whose last line is the promise → false', () => {
      fc.assert(
        fc.property(
          fc.array(textLine, { maxLength: 8 }),
          fc.constantFrom('', '\n', '\n\n', '  \n'),
          fc.constantFrom('', 'Reading the prompt:\n', 'ok\n\n'),
          (lines, trailing, leading) => {
            const prompt = [...lines, PROMISE].join('\n');
            const output = `${leading}${prompt}${trailing}`;
            expect(promiseFulfilled(output, PROMISE, prompt)).toBe(false);
          },
        ),
      );
    });

    it('an echo followed by the real promise line → true', () => {
      fc.assert(
        fc.property(fc.array(textLine, { maxLength: 8 }), textLine, (lines, work) => {
          const prompt = [...lines, PROMISE].join('\n');
          const tail = `\n${work}\n${PROMISE}\n`;
          // When the agent's own final lines contain the whole prompt again, they are indistinguishable
          // from a second echo; that case is not what this property is about.
          fc.pre(!tail.includes(prompt.trim()));
          const output = `${prompt}${tail}`;
          expect(promiseFulfilled(output, PROMISE, prompt)).toBe(true);
        }),
      );
    });
  });
});

describe('withoutPromptEcho', () => {
  it('an echoed prompt (before or after the agent text) contributes no event tag', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.constantFrom('LOOP_COMPLETE', 'build.done', 'x.y'),
        fc.boolean(),
        (agent, promptText, topic, echoFirst) => {
          const prompt = `${promptText}\n<event topic="${topic}">example</event>\n`;
          const output = echoFirst ? `${prompt}${agent}` : `${agent}${prompt}`;
          const tags = parseEventTags(withoutPromptEcho(output, prompt));
          expect(tags).toEqual(parseEventTags(agent));
        },
      ),
    );
  });

  it('an echo with CRLF line ends, or repeated, never completes the loop for the agent', () => {
    const prompt = `Work on the task.\nWhen everything is done, print:\n${PROMISE}`;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.boolean(), textLine, (times, crlf, before) => {
        const echo = crlf ? prompt.replace(/\n/g, '\r\n') : prompt;
        const output = `${before}\n${echo.repeat(times)}\n`;
        expect(promiseFulfilled(output, PROMISE, prompt)).toBe(false);
        // The agent's own promise after the echoes still counts.
        expect(promiseFulfilled(`${output}${PROMISE}\n`, PROMISE, prompt)).toBe(true);
      }),
    );
  });

  it('a prompt of a megabyte is found and removed as plain text', () => {
    const prompt = `${'x'.repeat(1_000_000)}\n${PROMISE}`;
    expect(promiseFulfilled(`${prompt}\n`, PROMISE, prompt)).toBe(false);
    expect(promiseFulfilled(`${prompt}\ndone\n${PROMISE}\n`, PROMISE, prompt)).toBe(true);
  });

  it('keeps everything when the prompt is not echoed', () => {
    expect(withoutPromptEcho('<event topic="a">x</event>', 'Do it.')).toBe('<event topic="a">x</event>');
  });
});

describe('a <promise> tag at the end of the last line (snarktank/ralph)', () => {
  it.each([
    ['after prose', 'All stories pass. <promise>COMPLETE</promise>'],
    ['with trailing blanks', 'Done here. <promise>COMPLETE</promise>  \n\n'],
    ['spaces inside the tag', 'ok <promise> COMPLETE </promise>'],
    ['upper-case tag', 'ok <PROMISE>COMPLETE</PROMISE>'],
  ])('%s → true for promise COMPLETE', (_name, output) => {
    expect(promiseFulfilled(`Worked.\n${output}`, 'COMPLETE', PROMPT)).toBe(true);
  });

  it('a promise configured with its tags is matched by the tag at the end of a line', () => {
    const promise = '<promise>COMPLETE</promise>';
    expect(promiseFulfilled('All stories pass. <promise>COMPLETE</promise>', promise, PROMPT)).toBe(true);
  });

  it.each([
    ['another promise inside', 'All pass. <promise>COMPLETE</promise>', PROMISE],
    ['text after the tag', 'All pass. <promise>COMPLETE</promise> not yet', 'COMPLETE'],
    ['the tag on an earlier line', '<promise>COMPLETE</promise>\nOne more story left.', 'COMPLETE'],
    ['an empty tag', 'All pass. <promise></promise>', 'COMPLETE'],
    ['a different case inside', 'All pass. <promise>complete</promise>', 'COMPLETE'],
  ])('%s → false', (_name, output, promise) => {
    expect(promiseFulfilled(output, promise, PROMPT)).toBe(false);
  });

  it('a prompt that ends with the tag, echoed, does not complete', () => {
    const prompt = 'When all stories pass, reply with <promise>COMPLETE</promise>';
    expect(promiseFulfilled(`${prompt}\n`, 'COMPLETE', prompt)).toBe(false);
  });

  it('property: any prose line ending in the tag of the configured promise completes', () => {
    fc.assert(
      fc.property(fc.array(textLine, { maxLength: 6 }), textLine, (before, prose) => {
        fc.pre(!prose.includes('<') && !prose.includes('>'));
        const output = `${before.join('\n')}\n${prose} <promise>${PROMISE}</promise>\n`;
        expect(promiseFulfilled(output, PROMISE, PROMPT)).toBe(true);
      }),
    );
  });

  it('property: the tag holding anything but the promise never completes', () => {
    fc.assert(
      fc.property(textLine, textLine, (prose, inner) => {
        fc.pre(!inner.includes('<') && !inner.includes('>') && inner.trim() !== PROMISE);
        fc.pre(prose.trim() !== PROMISE);
        expect(promiseFulfilled(`${prose} <promise>${inner}</promise>`, PROMISE, PROMPT)).toBe(false);
      }),
    );
  });

  it('property: the tag followed by any other non-empty line never completes', () => {
    fc.assert(
      fc.property(
        textLine,
        textLine.filter((l) => l.trim().length > 0 && !/<promise>/i.test(l)),
        (prose, after) => {
          expect(promiseFulfilled(`${prose} <promise>${PROMISE}</promise>\n${after}`, PROMISE, PROMPT)).toBe(
            false,
          );
        },
      ),
    );
  });
});
