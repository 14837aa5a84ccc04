import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, linkToNowhere, RalphError } from '../../errors.ts';
import { PRESETS, presetFile } from '../presets.ts';
import type { KeyNote } from './adapt-layer.ts';

// `-H <hats source>` (ralph-orchestrator's split config): a file of hats whose `hats` and `events`
// replace the config's and whose workflow keys of `event_loop` override it. Pure but for finding it.

/** The top-level keys a hats source may hold (`name` and `description` are read and unused). */
export const HATS_SOURCE_KEYS: readonly string[] = ['hats', 'events', 'event_loop', 'name', 'description'];

/** The `event_loop` keys a hats source overrides; its other `event_loop` keys are the core config's. */
export const HATS_SOURCE_EVENT_LOOP_KEYS: readonly string[] = [
  'completion_promise',
  'starting_event',
  'cancellation_promise',
];

const BUILTIN = 'builtin:';

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The file of a hats source: `builtin:NAME` is the ralph.yml of Ralph's preset NAME, anything else
 * a YAML file (relative to `cwd`). A URL, a missing file or a directory is an error saying what to pass.
 */
export function hatsSourceFile(cwd: string, source: string): { file: string; builtin: boolean } {
  if (source.startsWith(BUILTIN)) {
    const name = source.slice(BUILTIN.length);
    if (!PRESETS.some((p) => p.name === name))
      throw new RalphError(
        'unknown_preset',
        `unknown built-in hat collection "${name}" (-H ${source}); available: ${PRESETS.map((p) => `builtin:${p.name}`).join(', ')} — Ralph's presets; ralph-orchestrator's collections are not built in: save one as a file and pass its path`,
      );
    return { file: presetFile(name, 'ralph.yml'), builtin: true };
  }
  if (/^https?:\/\//i.test(source))
    throw new RalphError(
      'config_unreadable',
      `-H ${source}: Ralph reads no hats over the network; download the file and pass its path`,
    );
  const file = resolve(cwd, source);
  if (!existsSync(file)) {
    const link = linkToNowhere(file);
    throw new RalphError(
      'config_unreadable',
      `hats file not found: ${source}${link ? ` (${link})` : ''} — pass a YAML file of hats (-H FILE) or a built-in collection (-H builtin:NAME)`,
    );
  }
  if (statSync(file).isDirectory())
    throw new RalphError(
      'config_unreadable',
      `-H ${source} is a directory: pass a YAML file of hats (ralph-orchestrator's TOML preset directories are not supported)`,
    );
  return { file, builtin: false };
}

/**
 * What of a hats source's `raw` applies (a copy): `hats`, `events` and the workflow keys of
 * `event_loop`. Every other key is a warning (none for a built-in collection: a preset is a whole
 * config); a file with other keys and neither `hats` nor `events` is not a hats file: an error.
 */
export function hatsSourceLayer(
  raw: Plain,
  source: { label: string; builtin: boolean; locateKey: (key: string) => { line: number; col: number } },
): { raw: Plain; warnings: KeyNote[] } {
  const { builtin } = source;
  const other = Object.keys(raw).filter((k) => !HATS_SOURCE_KEYS.includes(k));
  if (other.length > 0 && !Object.hasOwn(raw, 'hats') && !Object.hasOwn(raw, 'events'))
    throw new ConfigError([
      {
        file: source.label,
        ...source.locateKey(other[0]!),
        path: other[0]!,
        message: `a hats source (-H) holds hats:, events: and event_loop's ${HATS_SOURCE_EVENT_LOOP_KEYS.join('/')}; this file has neither hats: nor events: but ${other.join(', ')}: pass a whole config with -c`,
      },
    ]);
  const out: Plain = {};
  const warnings: KeyNote[] = [];
  const note = (path: string[], where: string) => {
    if (!builtin)
      warnings.push({
        path,
        message: `a hats source (-H) sets no ${where}; ignored (put it in ralph.yml or -c)`,
      });
  };
  for (const key of other) note([key], key);
  for (const key of ['hats', 'events'] as const) if (Object.hasOwn(raw, key)) out[key] = raw[key];
  const loop = raw.event_loop;
  if (isPlain(loop)) {
    const kept = Object.entries(loop).filter(([k]) => HATS_SOURCE_EVENT_LOOP_KEYS.includes(k));
    for (const k of Object.keys(loop))
      if (!HATS_SOURCE_EVENT_LOOP_KEYS.includes(k)) note(['event_loop', k], `event_loop.${k}`);
    if (kept.length > 0) out.event_loop = Object.fromEntries(kept);
  } else if (loop !== undefined) out.event_loop = loop; // not a mapping: the schema's error, at its line
  return { raw: out, warnings };
}

/**
 * A hats source's layer over the config below (copies): its `hats` and `events` replace the
 * config's whole (no hat of the config stays beside them), its `event_loop` keys override key by
 * key; its `starting_event` replaces the config's `starting_hat` too (the older form of the same
 * key, naming a hat of the config's), as `starting_event` wins in ralph-orchestrator.
 */
export function overlayHatsSource(base: Plain, over: Plain): Plain {
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = out[key];
    if (key !== 'event_loop' || !isPlain(below) || !isPlain(value)) {
      out[key] = structuredClone(value);
      continue;
    }
    const { starting_hat, ...rest } = below;
    const kept = Object.hasOwn(value, 'starting_event') || starting_hat === undefined ? rest : below;
    out[key] = { ...kept, ...structuredClone(value) };
  }
  return out;
}
