import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Document } from 'yaml';
import { RalphError } from '../../errors.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import { detectPeer, type Migration, migratePeer, PEER_FILES, PEERS, type Peer } from './peer-mappings.ts';

// `ralph init --from <peer>`'s reads and its one write: the peer's files in the directory, then
// ralph.yml (never over one without --force). The mapping itself is peer-mappings.ts, pure.

/** What each peer's project is expected to hold, for the error when none of it is there. */
const EXPECTED: Record<Peer, string> = {
  snarktank: 'prd.json or prompt.md (here or in scripts/ralph/)',
  'ralph-tui': '.ralph-tui/config.toml or prd.json',
  frankbria: '.ralphrc, .ralph/PROMPT.md or fix_plan.md',
  'ralph-orchestrator': 'ralph.yml',
};

/** The peer's files that exist in `dir`, with their text (a directory or unreadable file is skipped). */
export function readPeerFiles(dir: string, paths: readonly string[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const path of paths) {
    const file = join(dir, path);
    try {
      if (statSync(file).isFile()) files.set(path, readFileSync(file, 'utf8'));
    } catch {
      // Not there: that file of the peer's layout is not used here.
    }
  }
  return files;
}

/** Which peer's project `dir` looks like, for `ralph init`'s hint; undefined when none. */
export function detectPeerProject(dir: string): Peer | undefined {
  return detectPeer(readPeerFiles(dir, [...new Set(Object.values(PEER_FILES).flat())]));
}

/** The ralph.yml text of a migration's settings (dotted keys nested, in order). */
export function migrationYaml(peer: Peer, m: Migration): string {
  const doc = new Document({});
  for (const [key, value] of m.settings) doc.setIn(key.split('.'), value);
  doc.commentBefore = ` Written by \`ralph init --from ${peer}\` (docs/guide/migrating.md).`;
  return String(doc);
}

/** What `initFrom` did. */
export interface InitFromResult {
  peer: Peer;
  /** ralph.yml, when it was written (ralph-orchestrator's is read as it is). */
  written?: string | undefined;
  migration: Migration;
}

/**
 * Writes the ralph.yml equivalent to the `peer` project in `dir`. Refuses (a RalphError saying
 * what to do, nothing written) when none of the peer's files is there or ralph.yml exists without
 * `force`.
 */
export function initFrom(dir: string, peer: string, opts: { force?: boolean } = {}): InitFromResult {
  if (!(PEERS as readonly string[]).includes(peer))
    throw new RalphError(
      'usage',
      `unknown project kind "${peer}" for --from; choose one of ${PEERS.join(', ')}`,
    );
  const kind = peer as Peer;
  const files = readPeerFiles(dir, PEER_FILES[kind]);
  const telltale =
    kind === 'ralph-orchestrator' ? files.has('ralph.yml') || files.has('ralph.yaml') : files.size > 0;
  if (!telltale) throw new RalphError('usage', `no ${kind} project in ${dir}: expected ${EXPECTED[kind]}`);
  const migration = migratePeer(kind, files);
  if (kind === 'ralph-orchestrator') return { peer: kind, migration };
  const target = join(dir, 'ralph.yml');
  if (existsSync(target) && !opts.force)
    throw new RalphError('init_exists', `ralph.yml already exists in ${dir}; pass --force to overwrite it`);
  writeFileAtomicSync(target, migrationYaml(kind, migration));
  return { peer: kind, written: 'ralph.yml', migration };
}
