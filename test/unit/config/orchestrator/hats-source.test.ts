import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeLayer } from '../../../../src/config/config-layers.ts';
import {
  HATS_SOURCE_EVENT_LOOP_KEYS,
  hatsSourceFile,
  hatsSourceLayer,
  overlayHatsSource,
} from '../../../../src/config/orchestrator/hats-source.ts';
import { presetFile } from '../../../../src/config/presets.ts';
import { ConfigError, RalphError } from '../../../../src/errors.ts';
import { removeWhenDone } from '../../../helpers/workspace.ts';

const key = fc.constantFrom('hats', 'events', 'event_loop', 'cli', 'gates', 'tasks');
const leaf = fc.oneof(fc.integer(), fc.string(), fc.array(fc.string(), { maxLength: 2 }));
const section = fc.dictionary(
  fc.constantFrom('a', 'starting_hat', 'starting_event', 'max_iterations'),
  leaf,
  {
    maxKeys: 3,
  },
);
const layer = fc.dictionary(key, section, { maxKeys: 5 });

describe('overlayHatsSource: a hats source over the config below', () => {
  it('replaces hats and events whole, merges event_loop key by key, keeps every other section', () => {
    fc.assert(
      fc.property(layer, layer, (base, over) => {
        const before = structuredClone(base);
        const out = overlayHatsSource(base, over);
        expect(base).toEqual(before); // the config below is not changed
        for (const k of ['hats', 'events'])
          expect(out[k]).toEqual(Object.hasOwn(over, k) ? over[k] : base[k]);
        if (Object.hasOwn(over, 'event_loop')) {
          const { starting_hat, ...rest } = (base.event_loop ?? {}) as Record<string, unknown>;
          const below = over.event_loop && 'starting_event' in over.event_loop ? rest : base.event_loop;
          expect(out.event_loop).toEqual({ ...(below ?? {}), ...over.event_loop });
        }
        for (const k of Object.keys(base).filter((k) => !Object.hasOwn(over, k)))
          expect(out[k]).toEqual(base[k]);
      }),
    );
  });

  it('differs from an ordinary layer only in that no hat of the config stays beside its hats', () => {
    const base = { hats: { builder: { triggers: ['a'] } }, events: { a: { description: 'x' } } };
    const over = { hats: { reviewer: { triggers: ['b'] } } };
    expect(Object.keys(mergeLayer(base, over).hats as object)).toEqual(['builder', 'reviewer']);
    expect(overlayHatsSource(base, over)).toEqual({ ...over, events: base.events });
  });
});

describe('hatsSourceLayer: what of a hats file applies', () => {
  const at = { label: 'hats.yml', builtin: false, locateKey: () => ({ line: 3, col: 1 }) };

  it('keeps hats, events and the workflow keys of event_loop; warns about the rest', () => {
    const { raw, warnings } = hatsSourceLayer(
      {
        name: 'review',
        hats: { r: { triggers: ['x'] } },
        events: { x: { description: 'X' } },
        event_loop: { starting_event: 'x', completion_promise: 'DONE', max_iterations: 3 },
        cli: { backend: 'codex' },
      },
      at,
    );
    expect(raw).toEqual({
      hats: { r: { triggers: ['x'] } },
      events: { x: { description: 'X' } },
      event_loop: { starting_event: 'x', completion_promise: 'DONE' },
    });
    expect(warnings.map((w) => w.path.join('.'))).toEqual(['cli', 'event_loop.max_iterations']);
    expect(warnings[0]!.message).toBe('a hats source (-H) sets no cli; ignored (put it in ralph.yml or -c)');
    expect(HATS_SOURCE_EVENT_LOOP_KEYS).toEqual([
      'completion_promise',
      'starting_event',
      'cancellation_promise',
    ]);
  });

  it('a built-in collection (a whole preset) gives no warnings', () => {
    const { warnings } = hatsSourceLayer(
      { hats: {}, cli: { backend: 'claude' }, event_loop: { max_iterations: 9 } },
      { ...at, builtin: true },
    );
    expect(warnings).toEqual([]);
  });

  it('a file with neither hats nor events but other keys is an error at its first key', () => {
    const error = (() => {
      try {
        hatsSourceLayer({ cli: { backend: 'codex' }, gates: {} }, at);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(
      /^hats\.yml:3:1: cli: a hats source \(-H\) holds hats:, events: .*neither hats: nor events: but cli, gates: pass a whole config with -c$/,
    );
  });
});

describe('hatsSourceFile: where -H points', () => {
  const dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-hats-source-')));
  mkdirSync(join(dir, 'hats'));

  it('builtin:NAME is a preset’s ralph.yml; an unknown one lists the collections', () => {
    expect(hatsSourceFile(dir, 'builtin:board')).toEqual({
      file: presetFile('board', 'ralph.yml'),
      builtin: true,
    });
    expect(() => hatsSourceFile(dir, 'builtin:code-assist')).toThrow(
      /unknown built-in hat collection "code-assist" \(-H builtin:code-assist\); available: builtin:.*builtin:board.*save one as a file and pass its path/,
    );
  });

  it('a URL, a missing file and a directory are errors that say what to pass', () => {
    const message = (source: string) => {
      try {
        hatsSourceFile(dir, source);
      } catch (e) {
        expect(e).toBeInstanceOf(RalphError);
        return (e as RalphError).message;
      }
    };
    expect(message('https://example.com/hats.yml')).toBe(
      '-H https://example.com/hats.yml: Ralph reads no hats over the network; download the file and pass its path',
    );
    expect(message('nope.yml')).toMatch(
      /^hats file not found: nope\.yml — pass a YAML file of hats \(-H FILE\)/,
    );
    expect(message('hats')).toMatch(/^-H hats is a directory: pass a YAML file of hats/);
  });
});
