import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  expand,
  type FakeScript,
  fakeScriptSchema,
  selectTurn,
  type TurnContext,
  turnMatches,
} from '../../../src/fake-agent/script.ts';

function ctx(over: Partial<TurnContext> = {}, files: string[] = []): TurnContext {
  return {
    iteration: 1,
    prompt: '',
    hat: '',
    exists: (p) => files.includes(p),
    ...over,
  };
}

describe('fakeScriptSchema', () => {
  it('accepts every kind of action and fills defaults', () => {
    const script = fakeScriptSchema.parse({
      turns: [
        {
          name: 'all',
          when: { iteration: [1, 2], min_iteration: 1, max_iteration: 3, prompt: 'x', hat: 'h' },
          do: [
            { print: 'hello' },
            { stderr: 'oops' },
            { echo_prompt: true },
            { write: { path: 'a.txt' } },
            { append: { path: 'a.txt', content: 'more' } },
            { delete: 'a.txt' },
            { run: 'true', allow_failure: true },
            { assistant: 'thinking', usage: { input_tokens: 3 } },
            { tool: { name: 'Bash', input: { command: 'ls' } } },
            { result: { text: 'done', cost_usd: 0.01 } },
            { sleep: 0.1 },
            { hang: true },
            { spawn_grandchild: {} },
            { crash: true },
            { exit: 3 },
          ],
        },
      ],
    });
    const actions = script.turns[0]!.do;
    expect(actions).toHaveLength(15);
    expect(actions[3]).toEqual({ write: { path: 'a.txt', content: '' } });
    expect(actions[7]).toEqual({
      assistant: 'thinking',
      usage: {
        input_tokens: 3,
        output_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    });
    expect(actions[9]).toMatchObject({
      result: { text: 'done', is_error: false, subtype: 'success', cost_usd: 0.01, input_tokens: 0 },
    });
    expect(actions[12]).toEqual({ spawn_grandchild: { seconds: 3600 } });
  });

  it.each([
    ['no turns', { turns: [] }],
    ['a turn without actions', { turns: [{ do: [] }] }],
    ['an unknown action', { turns: [{ do: [{ shout: 'x' }] }] }],
    ['two keys in one action', { turns: [{ do: [{ print: 'a', exit: 0 }] }] }],
    ['an exit code out of range', { turns: [{ do: [{ exit: 256 }] }] }],
    ['a negative sleep', { turns: [{ do: [{ sleep: -1 }] }] }],
    ['echo_prompt false', { turns: [{ do: [{ echo_prompt: false }] }] }],
    ['an unknown when key', { turns: [{ when: { iter: 1 }, do: [{ exit: 0 }] }] }],
    ['an unknown top-level key', { turns: [{ do: [{ exit: 0 }] }], extra: 1 }],
    ['iteration 0', { turns: [{ when: { iteration: 0 }, do: [{ exit: 0 }] }] }],
  ])('rejects %s', (_name, input) => {
    expect(fakeScriptSchema.safeParse(input).success).toBe(false);
  });
});

describe('turnMatches', () => {
  it('no condition matches everything', () => {
    expect(turnMatches(undefined, ctx())).toBe(true);
    expect(turnMatches({}, ctx({ iteration: 99 }))).toBe(true);
  });

  it('iteration: a number or a list', () => {
    expect(turnMatches({ iteration: 2 }, ctx({ iteration: 2 }))).toBe(true);
    expect(turnMatches({ iteration: 2 }, ctx({ iteration: 3 }))).toBe(false);
    expect(turnMatches({ iteration: [1, 3] }, ctx({ iteration: 3 }))).toBe(true);
    expect(turnMatches({ iteration: [1, 3] }, ctx({ iteration: 2 }))).toBe(false);
  });

  it('min/max iteration bounds are inclusive', () => {
    const when = { min_iteration: 2, max_iteration: 4 };
    expect([1, 2, 3, 4, 5].map((iteration) => turnMatches(when, ctx({ iteration })))).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
  });

  it('prompt is a multiline regular expression', () => {
    const prompt = '# Task\nHat: builder\nmore';
    expect(turnMatches({ prompt: '^Hat: builder$' }, ctx({ prompt }))).toBe(true);
    expect(turnMatches({ prompt: 'reviewer' }, ctx({ prompt }))).toBe(false);
  });

  it('hat must be equal', () => {
    expect(turnMatches({ hat: 'builder' }, ctx({ hat: 'builder' }))).toBe(true);
    expect(turnMatches({ hat: 'builder' }, ctx({ hat: 'builder2' }))).toBe(false);
  });

  it('file_exists / file_missing consult the context', () => {
    const c = ctx({}, ['work/item-1.txt']);
    expect(turnMatches({ file_exists: 'work/item-1.txt' }, c)).toBe(true);
    expect(turnMatches({ file_exists: 'work/item-2.txt' }, c)).toBe(false);
    expect(turnMatches({ file_missing: 'work/item-2.txt' }, c)).toBe(true);
    expect(turnMatches({ file_missing: 'work/item-1.txt' }, c)).toBe(false);
  });

  it('every given condition must hold', () => {
    const when = { iteration: 2, hat: 'builder' };
    expect(turnMatches(when, ctx({ iteration: 2, hat: 'builder' }))).toBe(true);
    expect(turnMatches(when, ctx({ iteration: 2, hat: 'other' }))).toBe(false);
    expect(turnMatches(when, ctx({ iteration: 1, hat: 'builder' }))).toBe(false);
  });
});

describe('selectTurn', () => {
  const script: FakeScript = fakeScriptSchema.parse({
    turns: [
      { name: 'first', when: { iteration: 1 }, do: [{ print: 'one' }] },
      { name: 'builder', when: { hat: 'builder' }, do: [{ print: 'build' }] },
      { name: 'late', when: { min_iteration: 5 }, do: [{ print: 'late' }] },
    ],
  });

  it('plays the first turn whose condition holds', () => {
    expect(selectTurn(script, ctx({ iteration: 1, hat: 'builder' }))?.name).toBe('first');
    expect(selectTurn(script, ctx({ iteration: 2, hat: 'builder' }))?.name).toBe('builder');
    expect(selectTurn(script, ctx({ iteration: 7 }))?.name).toBe('late');
  });

  it('returns undefined when nothing matches', () => {
    expect(selectTurn(script, ctx({ iteration: 3 }))).toBeUndefined();
  });

  it('property: the selected turn matches and no earlier turn does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.constantFrom('', 'builder', 'x'), (iteration, hat) => {
        const c = ctx({ iteration, hat });
        const chosen = selectTurn(script, c);
        const index = chosen ? script.turns.indexOf(chosen) : script.turns.length;
        for (let i = 0; i < index; i++) expect(turnMatches(script.turns[i]!.when, c)).toBe(false);
        if (chosen) expect(turnMatches(chosen.when, c)).toBe(true);
      }),
    );
  });
});

describe('expand', () => {
  const c = { iteration: 4, hat: 'builder', env: { RALPH_RUN_ID: 'run-1', EMPTY: '' } };

  it('replaces iteration, hat and env placeholders (whitespace allowed)', () => {
    expect(expand('it {{iteration}} hat {{ hat }} run {{env.RALPH_RUN_ID}}', c)).toBe(
      'it 4 hat builder run run-1',
    );
  });

  it('unknown env variables expand to empty', () => {
    expect(expand('[{{env.NOPE}}]', c)).toBe('[]');
  });

  it('leaves unrelated braces alone', () => {
    expect(expand('{{other}} {iteration} {{ env.1BAD }}', c)).toBe('{{other}} {iteration} {{ env.1BAD }}');
  });

  it('replaces every occurrence', () => {
    expect(expand('{{iteration}}-{{iteration}}', c)).toBe('4-4');
  });

  it('property: text without "{{" is unchanged', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('{{')),
        (s) => {
          expect(expand(s, c)).toBe(s);
        },
      ),
    );
  });
});
