import { inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** What a PNG shows, decoded: its size and how many different colours its pixels have. */
export interface PngSummary {
  width: number;
  height: number;
  colours: number;
}

/**
 * Decodes an 8-bit RGB or RGBA PNG (what browsers' screenshots are) far enough to count its
 * colours; throws on anything else or on a damaged file.
 */
export function readPng(png: Buffer): PngSummary {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG: wrong signature');
  let at = 8;
  let header: Buffer | undefined;
  const data: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') header = body;
    if (type === 'IDAT') data.push(body);
    if (type === 'IEND') break;
    at += 12 + length;
  }
  if (!header) throw new Error('not a PNG: no IHDR chunk');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const [depth, colourType] = [header[8], header[9]];
  if (depth !== 8 || (colourType !== 2 && colourType !== 6))
    throw new Error(`a PNG of bit depth ${depth}, colour type ${colourType}: only 8-bit RGB(A) is read here`);
  const bpp = colourType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * bpp;
  if (raw.length !== height * (stride + 1))
    throw new Error('a damaged PNG: the image data has the wrong size');
  let previous = Buffer.alloc(stride);
  const colours = new Set<number>();
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? (line[i - bpp] as number) : 0;
      const b = previous[i] as number;
      const c = i >= bpp ? (previous[i - bpp] as number) : 0;
      line[i] = ((line[i] as number) + unfilter(filter, a, b, c)) & 0xff;
    }
    for (let i = 0; i < stride; i += bpp)
      colours.add(((line[i] as number) << 16) | ((line[i + 1] as number) << 8) | (line[i + 2] as number));
    previous = line;
  }
  return { width, height, colours: colours.size };
}

/** What the filter added to a byte, from its left (a), upper (b) and upper-left (c) neighbours. */
function unfilter(filter: number | undefined, a: number, b: number, c: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    case 4: {
      const p = a + b - c;
      const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    default:
      throw new Error(`a damaged PNG: unknown filter ${filter}`);
  }
}
