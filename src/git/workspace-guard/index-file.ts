/**
 * Reads git's index file (`.git/index`, format versions 2–4: gitformat-index(5)) for one answer:
 * does any entry carry the assume-unchanged or the skip-worktree bit? A run starts with that
 * question, and in most repositories the answer is "no" — read here without a git process (each a
 * fork of Ralph's whole process, before the first agent can start). Undefined when this reader
 * cannot tell: another version, a split index (its entries are in a shared file), a malformed file.
 */
const HEADER = 12;
const STAT_AND_HASH = 60; // ten 32-bit stat fields, then a SHA-1
const TRAILER = 20;
const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const SKIP_WORKTREE = 0x4000; // in the extended flags
const NAME_MASK = 0xfff;

export function indexHasFlags(buf: Buffer): boolean | undefined {
  if (buf.length < HEADER + TRAILER || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = buf.readUInt32BE(8);
  const end = buf.length - TRAILER;
  let at = HEADER;
  for (let i = 0; i < count; i++) {
    const start = at;
    if (at + STAT_AND_HASH + 2 > end) return undefined;
    const flags = buf.readUInt16BE(at + STAT_AND_HASH);
    at += STAT_AND_HASH + 2;
    if (flags & ASSUME_VALID) return true;
    if (flags & EXTENDED) {
      if (version < 3 || at + 2 > end) return undefined;
      if (buf.readUInt16BE(at) & SKIP_WORKTREE) return true;
      at += 2;
    }
    if (version === 4) {
      // A varint (how much of the previous path to keep), then the rest of the path, NUL-ended.
      while (at < end && (buf[at] ?? 0) & 0x80) at++;
      at++;
      const nul = buf.indexOf(0, at);
      if (nul < 0 || nul >= end) return undefined;
      at = nul + 1;
      continue;
    }
    const named = flags & NAME_MASK;
    const nul = named === NAME_MASK ? buf.indexOf(0, at) : at + named;
    if (nul < 0 || nul >= end || buf[nul] !== 0) return undefined;
    // 1–8 NULs pad the entry to a multiple of eight bytes.
    const next = start + ((nul - start + 8) & ~7);
    if (next > end) return undefined;
    for (let p = nul; p < next; p++) if (buf[p] !== 0) return undefined;
    at = next;
  }
  // Extensions: a split index keeps its entries in another file ("link"); the others say nothing of flags.
  while (at + 8 <= end) {
    if (buf.toString('latin1', at, at + 4) === 'link') return undefined;
    at += 8 + buf.readUInt32BE(at + 4);
  }
  return at === end ? false : undefined;
}
