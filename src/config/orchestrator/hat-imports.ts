import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Pair, Scalar, YAMLMap } from 'yaml';
import { ConfigError, whyUnreadable } from '../../errors.ts';
import { locate, type SourceDoc } from '../config-issues.ts';

// ralph-orchestrator's hat imports (its issue 209): `hats.<id>.import: FILE` takes a hat's keys
// from a YAML file of one hat; the keys the hat sets itself win, key by key.

/** A hat of a layer whose keys came (partly) from another file. */
export interface HatImport {
  hat: string;
  /** The imported file, absolute. */
  file: string;
  /** The imported file's nodes under `hats.<hat>`, so `locate` finds its keys by their config path. */
  doc: SourceDoc;
  /** The keys taken from the file: the ones the hat does not set itself. */
  keys: string[];
}

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A parser of a YAML mapping (load-config's), given what to say when the file is not one. */
export type ParseMapping = (text: string, label: string, notMapping: string) => SourceDoc & { raw: Plain };

/** One located problem as the error every config problem is. */
function fail(doc: SourceDoc, path: string[], key: string | undefined, message: string): never {
  const pos = locate(doc, path, key);
  const at = key === undefined ? path : [...path, key];
  throw new ConfigError([{ file: doc.label, line: pos.line, col: pos.col, path: at.join('.'), message }]);
}

/** `contents` placed at `hats.<hat>` of an otherwise empty map: config paths locate inside it. */
function rootedAt(hat: string, contents: unknown): YAMLMap {
  const hats = new YAMLMap();
  hats.items.push(new Pair(new Scalar(hat), contents));
  const root = new YAMLMap();
  root.items.push(new Pair(new Scalar('hats'), hats));
  return root;
}

/**
 * The layer `raw` (read from `file`, parsed as `doc`) with each hat's `import:` replaced by the
 * imported file's keys under the hat's own (a copy; `raw` is not changed), and the imports made.
 * A bad import — not a string, a missing or unreadable file, not YAML of one hat, an import in the
 * imported file (no chains, so no cycles) or `events:` in it — is a ConfigError at its line.
 */
export function resolveHatImports(
  raw: Plain,
  doc: SourceDoc,
  file: string,
  parse: ParseMapping,
  labelOf: (file: string) => string,
): { raw: Plain; imports: HatImport[] } {
  const hats = raw.hats;
  if (!isPlain(hats) || !Object.values(hats).some((h) => isPlain(h) && Object.hasOwn(h, 'import')))
    return { raw, imports: [] };
  const imports: HatImport[] = [];
  const resolved: Plain = {};
  for (const [id, hat] of Object.entries(hats)) {
    if (!isPlain(hat) || !Object.hasOwn(hat, 'import')) {
      Object.defineProperty(resolved, id, {
        value: hat,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      continue;
    }
    const at = ['hats', id];
    const target = hat.import;
    if (typeof target !== 'string' || target.trim() === '')
      fail(doc, at, 'import', `hat "${id}": import must be the path of a YAML file of one hat`);
    const path = isAbsolute(target) ? target : resolve(dirname(file), target);
    let text: string;
    try {
      // A device or a pipe (/dev/zero, /dev/stdin) would never end: only a regular file is read.
      if (!statSync(path).isFile()) throw new Error('not a regular file');
      text = readFileSync(path, 'utf8');
    } catch (cause) {
      fail(
        doc,
        [...at, 'import'],
        undefined,
        `hat "${id}" imports ${target}: ${whyUnreadable(path, cause)} (${path}) — the path is relative to the directory of ${doc.label}`,
      );
    }
    const label = labelOf(path);
    const imported = parse(
      text,
      label,
      `hat "${id}" imports ${target}: the file must be a YAML mapping of one hat's keys (triggers:, publishes:, instructions:, …)`,
    );
    const rooted: SourceDoc = { ...imported, contents: rootedAt(id, imported.contents) };
    if (Object.hasOwn(imported.raw, 'import'))
      fail(
        rooted,
        at,
        'import',
        `an imported hat file cannot import another (${doc.label} hat "${id}" imports this file): put the keys here, or import the other file from ${doc.label}`,
      );
    if (Object.hasOwn(imported.raw, 'events'))
      fail(
        rooted,
        at,
        'events',
        `an imported hat file cannot hold events: (${doc.label} hat "${id}" imports this file): put the topics' events: in ${doc.label}`,
      );
    const { hat: merged, keys } = mergeImportedHat(imported.raw, hat);
    imports.push({ hat: id, file: path, doc: rooted, keys });
    Object.defineProperty(resolved, id, {
      value: merged,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { raw: { ...raw, hats: resolved }, imports };
}

/**
 * A hat with `import:` over its imported keys (pure; copies): each key the hat sets replaces the
 * file's whole (a list is not merged), `import` itself dropped; `keys` are the ones from the file.
 */
export function mergeImportedHat(imported: Plain, own: Plain): { hat: Plain; keys: string[] } {
  const { import: _own, ...local } = own;
  const { import: _imported, ...from } = imported;
  const keys = Object.keys(from).filter((k) => !Object.hasOwn(local, k));
  return { hat: { ...structuredClone(from), ...local }, keys };
}

/** The imported file that sets `path` (`hats.<id>.<key>…`) in a layer with `imports`, if one does. */
export function importedDoc(
  imports: readonly HatImport[] | undefined,
  path: readonly PropertyKey[],
): SourceDoc | undefined {
  if (path[0] !== 'hats' || path.length < 3 || !imports) return undefined;
  const found = imports.find((i) => i.hat === String(path[1]) && i.keys.includes(String(path[2])));
  return found?.doc;
}
