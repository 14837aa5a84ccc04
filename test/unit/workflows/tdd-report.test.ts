import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { presetFile } from '../../../src/config/presets.ts';
import { TDD_REPORT_SECTIONS } from '../../../src/config/schema/tdd.ts';
import { parseReport, reportProblem } from '../../../src/workflows/tdd-report.ts';

const SECTIONS: string[] = [...TDD_REPORT_SECTIONS];

describe('parseReport', () => {
  it('the preset example report is complete', () => {
    const r = parseReport(readFileSync(presetFile('tdd', 'loop/last_output.md'), 'utf8'), SECTIONS);
    expect(r).toEqual({ status: 'ENGINEERING', present: SECTIONS, missing: [] });
  });

  it('matches headings by prefix, whole words, any level, any case', () => {
    const r = parseReport(
      [
        '# Iteration 3 — 2026-11-21',
        '### status',
        'Blocked: waiting for the API key',
        '## 1. Tests run',
        '`npm test`: 2 failed',
        '## **Next iteration plan**',
        'fix the parser',
        '## Testsuite',
        'not Tests',
        '## Notes',
        '<!-- nothing -->',
        '## Changes',
        '```',
        '## Actions',
        '```',
      ].join('\n'),
      SECTIONS,
    );
    expect(r.status).toBe('BLOCKED');
    expect(r.present).toEqual(['Iteration', 'Status', 'Changes', 'Tests', 'Next']);
    expect(r.missing).toEqual(['Actions', 'Current state', 'Notes']);
  });

  it('reads field lines (not list items) such as **Status:** CREATIVE', () => {
    const r = parseReport('**Iteration:** 4\n**Status:** creative\n- Tests: passing\nNotes:\n', SECTIONS);
    expect(r.status).toBe('CREATIVE');
    expect(r.present).toEqual(['Iteration', 'Status']);
  });

  it('a status heading with its value counts', () => {
    expect(parseReport('## Status: ENGINEERING\n', ['Status'])).toEqual({
      status: 'ENGINEERING',
      present: ['Status'],
      missing: [],
    });
    expect(parseReport('', SECTIONS)).toEqual({ status: null, present: [], missing: SECTIONS });
  });

  it('reportProblem says what the next iteration must fix', () => {
    const file = 'loop/last_output.md';
    expect(reportProblem(file, { status: null, present: SECTIONS, missing: [] })).toBeUndefined();
    expect(reportProblem(file, { status: null, present: [], missing: ['Tests', 'Next'] })).toBe(
      'loop/last_output.md is missing required section(s): Tests, Next; write every section each iteration',
    );
    expect(reportProblem(file, null)).toMatch(/was not written/);
  });
});

/** Content lines that can never look like a heading or a `Name:` field. */
const contentLine = fc.stringMatching(/^[a-z0-9 .,()-]{1,30}$/).filter((s) => s.trim() !== '');
const reportSection = (name: string) =>
  fc.record({
    name: fc.constant(name),
    level: fc.integer({ min: 1, max: 4 }),
    title: fc.constantFrom(name, name.toUpperCase(), `${name} run`, `${name} — 2026-11-21`, `${name}:`),
    body: fc.array(contentLine, { minLength: 1, maxLength: 3 }),
  });
const completeReport = fc
  .tuple(...SECTIONS.map(reportSection))
  .chain((sections) => fc.shuffledSubarray(sections, { minLength: sections.length }));
type GenSection = { name: string; level: number; title: string; body: string[] };
const render = (sections: readonly GenSection[]) =>
  sections.map((s) => `${'#'.repeat(s.level)} ${s.title}\n${s.body.join('\n')}\n`).join('\n');

describe('property 3: report completeness', () => {
  it('finds every section of a complete report', () => {
    fc.assert(
      fc.property(completeReport, (sections) => {
        expect(parseReport(render(sections), SECTIONS)).toMatchObject({ present: SECTIONS, missing: [] });
      }),
    );
  });

  it('reports exactly the removed sections as missing, in the required order', () => {
    fc.assert(
      fc.property(
        completeReport,
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        (sections, drop) => {
          const removed = SECTIONS.filter((_, i) => drop[i]);
          const kept = sections.filter((s) => !removed.includes(s.name));
          const r = parseReport(render(kept), SECTIONS);
          expect(r.missing).toEqual(removed);
          expect(r.present).toEqual(SECTIONS.filter((n) => !removed.includes(n)));
        },
      ),
    );
  });

  it('reads the status whatever its case', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom('ENGINEERING', 'CREATIVE', 'BLOCKED')
          .chain((status) => fc.tuple(fc.constant(status), fc.mixedCase(fc.constant(status)))),
        ([status, written]) => {
          expect(parseReport(`## Status\nMode: ${written} (tests red)\n`, ['Status']).status).toBe(status);
        },
      ),
    );
  });
});
