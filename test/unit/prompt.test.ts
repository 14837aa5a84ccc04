import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assemblePrompt } from '../../src/routing/prompt.ts';

const BASE = '# Task\n\nMake the tests in test/ pass.\n';

describe('assemblePrompt', () => {
  it('solo mode: the base prompt comes first, then a DONE section naming the promise', () => {
    const out = assemblePrompt({ base: BASE, completionPromise: 'LOOP_COMPLETE', hatInstructions: null });
    expect(out.startsWith(BASE.trimEnd())).toBe(true);
    expect(out).toContain('## DONE');
    expect(out).toContain('LOOP_COMPLETE');
    expect(out.indexOf('## DONE')).toBeGreaterThan(out.indexOf('Make the tests'));
    expect(out.endsWith('\n')).toBe(true);
    expect(out.endsWith('\n\n')).toBe(false);
  });

  it('the DONE section puts the promise alone at the end of its last line', () => {
    const out = assemblePrompt({ base: BASE, completionPromise: 'ALL_GREEN', hatInstructions: null });
    const last = out.trimEnd().split('\n').at(-1)!;
    expect(last.endsWith(' ALL_GREEN')).toBe(true);
  });

  it('hat mode: hat instructions follow the base and there is no DONE section', () => {
    const hat = '## Builder\n\nImplement one task, then publish build.done.\n\n';
    const out = assemblePrompt({ base: BASE, completionPromise: 'LOOP_COMPLETE', hatInstructions: hat });
    expect(out.startsWith(BASE.trimEnd())).toBe(true);
    expect(out).toContain('## Builder');
    expect(out).not.toContain('## DONE');
    expect(out).not.toContain('LOOP_COMPLETE');
    expect(out).toBe(`${BASE.trimEnd()}\n\n${hat.trimEnd()}\n`);
  });

  it('an empty hat instruction string is still hat mode (no DONE section)', () => {
    const out = assemblePrompt({ base: BASE, completionPromise: 'LOOP_COMPLETE', hatInstructions: '' });
    expect(out).not.toContain('## DONE');
  });

  it('is a pure function of its input', () => {
    const input = { base: BASE, completionPromise: 'X', hatInstructions: null };
    expect(assemblePrompt(input)).toBe(assemblePrompt({ ...input }));
  });

  // Any code points (up to 4 UTF-8 bytes each), 1..40 of them.
  const promiseArb = fc
    .string({ unit: 'binary', minLength: 1, maxLength: 40 })
    .filter((s) => s.trim().length > 0 && !s.includes('\n'));

  it('property: the base prompt appears verbatim (minus trailing whitespace) at the start', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        promiseArb,
        fc.option(fc.string({ maxLength: 100 }), { nil: null }),
        (base, completionPromise, hatInstructions) => {
          const out = assemblePrompt({ base, completionPromise, hatInstructions });
          expect(out.startsWith(base.trimEnd())).toBe(true);
          if (!base.includes('## DONE') && !(hatInstructions ?? '').includes('## DONE'))
            expect(out.includes('## DONE')).toBe(hatInstructions === null);
          if (hatInstructions === null) expect(out).toContain(completionPromise);
        },
      ),
    );
  });

  it('property: solo mode adds fewer than 400 bytes for any promise up to 40 chars', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), promiseArb, (body, completionPromise) => {
        const base = `${body.trimEnd()}`;
        const out = assemblePrompt({ base, completionPromise, hatInstructions: null });
        const added = Buffer.byteLength(out, 'utf8') - Buffer.byteLength(base, 'utf8');
        expect(added).toBeLessThan(400);
      }),
    );
  });

  it('solo mode overhead is under 400 bytes even for 40 four-byte characters', () => {
    const wide = '😀'.repeat(40);
    const out = assemblePrompt({ base: BASE, completionPromise: wide, hatInstructions: null });
    expect(Buffer.byteLength(out) - Buffer.byteLength(BASE.trimEnd())).toBeLessThan(400);
  });
});
