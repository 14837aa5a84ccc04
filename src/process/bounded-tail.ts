/**
 * Keeps only the last `limit` characters of a stream, with amortised O(1) appends: whole chunks are
 * dropped from the front once the rest holds the limit, and the text is joined only when read
 * (a chatty agent's megabytes are never copied on the way).
 */
export class BoundedTail {
  private chunks: string[] = [];
  private first = 0;
  private length = 0;
  private dropped = false;
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }

  push(chunk: string): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
    for (;;) {
      const head = this.chunks[this.first];
      if (head === undefined || this.length - head.length < this.limit) break;
      this.length -= head.length;
      this.dropped = true;
      this.first++;
    }
    if (this.first > 64) {
      this.chunks = this.chunks.slice(this.first);
      this.first = 0;
    }
  }

  /** The retained text (at most `limit` characters). */
  text(): string {
    const joined = this.chunks.slice(this.first).join('');
    const kept = this.limit > 0 ? joined.slice(-this.limit) : '';
    this.dropped ||= kept.length < joined.length;
    this.chunks = kept === '' ? [] : [kept];
    this.first = 0;
    this.length = kept.length;
    return kept;
  }

  /** True once anything was discarded. */
  get truncated(): boolean {
    return this.dropped || this.length > this.limit;
  }
}

/** Splits a chunked text stream into lines; lines longer than `maxLine` are cut (the rest dropped). */
export class LineSplitter {
  private partial = '';
  private overflow = false;
  private readonly onLine: (line: string) => void;
  private readonly maxLine: number;
  constructor(onLine: (line: string) => void, maxLine = 8 * 1024 * 1024) {
    this.onLine = onLine;
    this.maxLine = maxLine;
  }

  push(chunk: string): void {
    let start = 0;
    let nl = chunk.indexOf('\n');
    if (nl !== -1 && (this.partial !== '' || this.overflow)) {
      this.append(chunk.slice(0, nl));
      this.emit(this.partial);
      this.partial = '';
      this.overflow = false;
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    // The hot path (a chatty agent prints millions of lines): whole lines straight from the chunk.
    for (; nl !== -1; nl = chunk.indexOf('\n', start)) {
      this.emit(
        nl - start > this.maxLine ? chunk.slice(start, start + this.maxLine) : chunk.slice(start, nl),
      );
      start = nl + 1;
    }
    if (start < chunk.length) this.append(chunk.slice(start));
  }

  /** Adds text to the current line, cutting it at `maxLine` and dropping the rest of that line. */
  private append(text: string): void {
    if (this.overflow) return;
    this.partial += text;
    if (this.partial.length > this.maxLine) {
      this.partial = this.partial.slice(0, this.maxLine);
      this.overflow = true;
    }
  }

  /** Emits a final unterminated line, if any. */
  end(): void {
    if (this.partial.length > 0) this.emit(this.partial);
    this.partial = '';
  }

  private emit(line: string): void {
    this.onLine(line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line);
  }
}
