import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boundProgressText,
  MAX_PROGRESS_CHARS,
  readProgressNotesSince,
} from '../../../src/human/progress-notes.ts';
import { makeWorkspace } from '../../helpers/workspace.ts';

describe('a progress note’s text', () => {
  it('property: trimmed, never longer than MAX_PROGRESS_CHARS, cut only when it was longer, keeping its start', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3 * MAX_PROGRESS_CHARS }), (raw) => {
        const { text, cut } = boundProgressText(raw);
        const trimmed = raw.trim();
        expect(text.length).toBeLessThanOrEqual(MAX_PROGRESS_CHARS);
        expect(cut).toBe(trimmed.length > MAX_PROGRESS_CHARS);
        if (cut) expect(trimmed.startsWith(text.slice(0, -1))).toBe(true);
        else expect(text).toBe(trimmed);
      }),
    );
  });
});

describe('reading the progress file', () => {
  it('returns the notes appended since an offset; lines that are no note are skipped, a torn last line waits', () => {
    const file = join(makeWorkspace(), 'progress.jsonl');
    const a = { id: 'p-1', ts: 't', text: 'one', run_id: 'r', iteration: 1 };
    writeFileSync(file, `${JSON.stringify(a)}\nnot json\n{"id":3}\n{"id":"p-2","te`);
    const first = readProgressNotesSince(file, 0);
    expect(first.notes).toEqual([a]);
    const b = { id: 'p-2', ts: 't', text: 'two', run_id: 'r', iteration: 1 };
    writeFileSync(file, `${JSON.stringify(a)}\nnot json\n{"id":3}\n${JSON.stringify(b)}\n`);
    expect(readProgressNotesSince(file, first.nextOffset).notes).toEqual([b]);
    expect(readProgressNotesSince(join(makeWorkspace(), 'none.jsonl'), 0)).toEqual({
      notes: [],
      nextOffset: 0,
    });
  });
});
