/** Keeps only the last `limit` characters of a stream, with amortised O(1) appends. */
export class BoundedTail {
  private chunks: string[] = [];
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
    if (this.length > this.limit * 2) this.compact();
  }

  private compact(): void {
    const joined = this.chunks.join('');
    const kept = this.limit > 0 ? joined.slice(-this.limit) : '';
    this.dropped ||= kept.length < joined.length;
    this.chunks = [kept];
    this.length = kept.length;
  }

  /** The retained text (at most `limit` characters). */
  text(): string {
    this.compact();
    return this.chunks[0] ?? '';
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
    for (let nl = chunk.indexOf('\n', start); nl !== -1; nl = chunk.indexOf('\n', start)) {
      this.append(chunk.slice(start, nl));
      this.emit(this.partial);
      this.partial = '';
      this.overflow = false;
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
    this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  }
}
