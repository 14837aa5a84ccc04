/** How the pieces of one stream are read and rebuilt. */
export interface HeadTailOptions<T> {
  headBytes: number;
  tailBytes: number;
  textOf: (item: T) => string;
  /** The piece `item` with `text` instead of its own (iteration, stream … kept). */
  withText: (item: T, text: string) => T;
  /**
   * Each piece is one line (its newline implied: counted, never stored). Lines held for the tail
   * are merged into one piece per block, joined by newlines.
   */
  lines?: boolean | undefined;
}

/** A held piece: its text, its UTF-8 size, and an empty template of it. */
interface Kept<T> {
  template: T;
  text: string;
  size: number;
  /** The piece before it ended a line. */
  startsLine: boolean;
}

/** A held piece at the end, as UTF-8 bytes (cut at a byte offset). */
interface Held<T> {
  template: T;
  bytes: Buffer;
  /** The piece before it ended a line. */
  startsLine: boolean;
}

/** Lines held for the tail are merged about this many characters at a time. */
const MERGE_BLOCK = 64 * 1024;
const NONE: readonly never[] = Object.freeze([]);
/** How far past its budget the head may go to finish a line (characters). */
const HEAD_OVERRUN = 4096;

/**
 * Keeps the first `headBytes` and the last `tailBytes` (UTF-8) of a stream of text pieces — agent
 * output chunks, or the lines parsed from them — and counts what lies between, so a chatty agent's
 * output is stored bounded: the start (what it set out to do) and the end (the summary, the error)
 * survive. The head is passed on at once; the tail is held until `end`. Cuts fall on line ends
 * (the tail starts mid-line only when no newline is left in it: one endless line), so no line —
 * and no credential in it — is halved for the redaction that follows. Memory: the tail and a block.
 */
export class HeadTail<T> {
  private headLeft: number;
  private headOpen = true;
  /** The tail's budget: `tailBytes` and what the head left unused (a line that did not fit in it). */
  private tailBudget: number;
  /** The tail; slots before `first` are dropped pieces (emptied, so they are not kept alive). */
  private ring: (Kept<T> | undefined)[] = [];
  private first = 0;
  private ringBytes = 0;
  private cut = 0;
  private passedEndsLine = true;
  private lastEndedLine = true;
  private block: string[] = [];
  private blockTemplate: T | undefined;
  private blockChars = 0;
  private readonly o: HeadTailOptions<T>;
  private readonly newline: number;

  constructor(o: HeadTailOptions<T>) {
    this.o = o;
    this.headLeft = o.headBytes;
    this.tailBudget = o.tailBytes;
    this.newline = o.lines ? 1 : 0;
  }

  /** The pieces to pass on now: everything while the head lasts, nothing after (the tail waits for `end`). */
  push(item: T): readonly T[] {
    const text = this.o.textOf(item);
    if (!this.headOpen) {
      // The hot path of a chatty agent: nothing measured or allocated per line.
      if (this.o.lines) {
        this.blockTemplate ??= this.o.withText(item, '');
        this.block.push(text);
        this.blockChars += text.length + 1;
        if (this.blockChars >= MERGE_BLOCK) this.commitBlock();
      } else this.toRing(item, text);
      return NONE;
    }
    const size = Buffer.byteLength(text) + this.newline;
    if (size <= this.headLeft) {
      this.headLeft -= size;
      if (text !== '')
        this.passedEndsLine = this.lastEndedLine = this.o.lines === true || text.endsWith('\n');
      // A full head that ended mid-line stays open for the rest of that line (below).
      if (this.headLeft === 0 && this.passedEndsLine) this.headOpen = false;
      return [item];
    }
    // The piece that fills the head: its whole lines that fit pass, the rest is held.
    let at = this.o.lines ? 0 : headCut(text, this.headLeft);
    // The head ends a line: a line the last piece began is finished even a little past the budget
    // (a credential at the cut would otherwise pass half, where the redaction cannot see it).
    if (at === 0 && !this.o.lines && !this.passedEndsLine) {
      const nl = text.indexOf('\n');
      if (nl >= 0 && nl < HEAD_OVERRUN) at = nl + 1;
    }
    const headPart = at === 0 ? 0 : Buffer.byteLength(text.slice(0, at));
    this.tailBudget = this.o.tailBytes + Math.max(0, this.headLeft - headPart);
    this.headLeft = 0;
    this.headOpen = false;
    if (at > 0) this.passedEndsLine = this.lastEndedLine = true;
    if (at < text.length) this.push(this.o.withText(item, text.slice(at)));
    if (at === 0) return NONE;
    return [this.o.withText(item, text.slice(0, at))];
  }

  /**
   * Ends the stream: the held tail, cut to its budget at a line start, after a marker made by
   * `marker` (given the bytes cut and whether the text so far ended a line) when anything was cut.
   * Starts over for the next stream.
   */
  end(marker: (cutBytes: number, atLineStart: boolean) => T): T[] {
    this.commitBlock();
    // Bytes only now, for the tail that is kept: a chatty agent's dropped pieces never become Buffers.
    const held: Held<T>[] = (this.ring.slice(this.first) as Kept<T>[]).map((k) => ({
      template: k.template,
      bytes: Buffer.from(k.text),
      startsLine: k.startsLine,
    }));
    let over = this.ringBytes - this.tailBudget;
    // Off the front: what is over the budget, then up to a line start once anything was cut. A
    // tail with no newline left (one endless line) starts mid-line instead of empty.
    for (let front = held[0]; front; front = held[0]) {
      const size = front.bytes.length + this.newline;
      if (over <= 0 && (this.cut === 0 || front.startsLine)) break;
      let from = over >= size ? size : lineAfter(front.bytes, Math.max(0, over));
      if (from < 0)
        from =
          this.o.lines || held.slice(1).some((h) => h.bytes.includes(0x0a))
            ? size
            : charAt(front.bytes, over);
      if (from >= front.bytes.length) {
        held.shift();
        this.cut += size;
        over -= size;
        continue;
      }
      held[0] = { template: front.template, bytes: front.bytes.subarray(from), startsLine: true };
      this.cut += from;
      break;
    }
    const out = held.map((h) => this.o.withText(h.template, h.bytes.toString()));
    if (this.cut > 0) out.unshift(marker(this.cut, this.passedEndsLine));
    this.headLeft = this.o.headBytes;
    this.headOpen = true;
    this.tailBudget = this.o.tailBytes;
    this.ring = [];
    this.first = 0;
    this.ringBytes = 0;
    this.cut = 0;
    this.passedEndsLine = true;
    this.lastEndedLine = true;
    return out;
  }

  /** The held lines as one piece. */
  private commitBlock(): void {
    if (this.block.length === 0 || this.blockTemplate === undefined) return;
    this.toRing(this.blockTemplate, this.block.join('\n'));
    this.block = [];
    this.blockTemplate = undefined;
    this.blockChars = 0;
  }

  /** Puts a piece at the end of the tail, dropping whole pieces from its front while the rest still fills it. */
  private toRing(template: T, text: string): void {
    if (text === '' && !this.o.lines) return;
    const size = Buffer.byteLength(text);
    this.ring.push({ template: this.o.withText(template, ''), text, size, startsLine: this.lastEndedLine });
    this.lastEndedLine = this.o.lines === true || text.endsWith('\n');
    this.ringBytes += size + this.newline;
    for (;;) {
      const first = this.ring[this.first];
      if (!first || this.first === this.ring.length - 1) break;
      const size = first.size + this.newline;
      if (this.ringBytes - size < this.tailBudget) break;
      this.ringBytes -= size;
      this.cut += size;
      this.ring[this.first++] = undefined;
    }
    if (this.first > 1024 && this.first * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.first);
      this.first = 0;
    }
  }
}

/**
 * Where to end a head of at most `budget` bytes of `text`: after the last newline that fits, or 0
 * when none does (a line is never halved at the head). A character index.
 */
function headCut(text: string, budget: number): number {
  if (budget <= 0) return 0;
  // A character is 1–3 UTF-8 bytes (a surrogate pair 4 for 2): `budget` characters hold the budget.
  const bytes = Buffer.from(text.slice(0, budget));
  const nl = bytes.lastIndexOf(0x0a, budget - 1);
  return nl < 0 ? 0 : bytes.subarray(0, nl + 1).toString().length;
}

/** The start of the first line that begins at or after byte `drop` (after a newline), or -1. */
function lineAfter(bytes: Buffer, drop: number): number {
  if (drop >= bytes.length) return bytes.length;
  const nl = bytes.indexOf(0x0a, Math.max(0, drop - 1));
  return nl < 0 ? -1 : nl + 1;
}

/** The first character boundary at or after byte `at`. */
function charAt(bytes: Buffer, at: number): number {
  let i = Math.max(0, at);
  while (i < bytes.length && ((bytes[i] ?? 0) & 0xc0) === 0x80) i++;
  return i;
}

const MB = 1024 * 1024;

/** `287.3 MB`, `512 KB`, `900 bytes`. */
export function formatBytes(n: number): string {
  if (n >= MB) return `${(n / MB).toFixed(1).replace(/\.0$/, '')} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}
