import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addTotals, UsageMeter } from '../../../../src/agent/usage-meter.ts';
import {
  createStreamJsonParser,
  createTextParser,
  readUsage,
} from '../../../../src/backends/parsers/stream-json.ts';
import type { AgentEvent } from '../../../../src/backends/types.ts';

const MODEL = 'claude-sonnet-4-5-20250929';

const systemInit = JSON.stringify({
  type: 'system',
  subtype: 'init',
  session_id: 'sess-1',
  model: MODEL,
  tools: ['Bash', 'Read'],
  cwd: '/tmp/ws',
});

const usage1 = {
  input_tokens: 10,
  output_tokens: 5,
  cache_read_input_tokens: 1000,
  cache_creation_input_tokens: 200,
};

function assistant(id: string, content: unknown[], usage: unknown = usage1): string {
  return JSON.stringify({
    type: 'assistant',
    message: { id, type: 'message', role: 'assistant', model: MODEL, content, usage },
    session_id: 'sess-1',
  });
}

const toolResult = JSON.stringify({
  type: 'user',
  message: {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'file.txt\n' }] },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: 'boom', is_error: true },
    ],
  },
});

function result(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: false,
    duration_ms: 1234,
    num_turns: 2,
    result: 'All done.\nLOOP_COMPLETE',
    session_id: 'sess-1',
    total_cost_usd: 0.0421,
    usage: {
      input_tokens: 30,
      output_tokens: 40,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 300,
    },
    ...fields,
  });
}

function parseAll(lines: string[]): { events: AgentEvent[]; finalText: string } {
  const parser = createStreamJsonParser();
  const events = lines.flatMap((l) => parser.parseLine(l));
  return { events, finalText: parser.finalText() };
}

describe('createStreamJsonParser', () => {
  it('parses a Claude session into normalized events', () => {
    const { events, finalText } = parseAll([
      systemInit,
      assistant('msg_1', [
        { type: 'text', text: 'Listing files.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
      ]),
      toolResult,
      result(),
    ]);
    expect(events).toEqual([
      { type: 'system', model: MODEL, sessionId: 'sess-1' },
      { type: 'text', text: 'Listing files.' },
      { type: 'tool_call', name: 'Bash', id: 'toolu_1', input: { command: 'ls' } },
      {
        type: 'usage',
        messageId: 'msg_1',
        model: MODEL,
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 1000, cacheWriteTokens: 200 },
      },
      { type: 'tool_result', id: 'toolu_1', output: 'file.txt\n', isError: false },
      { type: 'tool_result', id: 'toolu_2', output: 'boom', isError: true },
      {
        type: 'result',
        text: 'All done.\nLOOP_COMPLETE',
        isError: false,
        costUsd: 0.0421,
        model: undefined,
        usage: { inputTokens: 30, outputTokens: 40, cacheReadTokens: 2000, cacheWriteTokens: 300 },
      },
    ]);
    expect(finalText).toBe('All done.\nLOOP_COMPLETE');
  });

  it('a result with is_error: true is an error even when its subtype says success', () => {
    const { events } = parseAll([result({ is_error: true, subtype: 'success', result: 'API Error: 500' })]);
    expect(events).toEqual([
      expect.objectContaining({ type: 'result', isError: true, text: 'API Error: 500' }),
    ]);
  });

  it('an error_* subtype is an error', () => {
    const { events } = parseAll([result({ is_error: false, subtype: 'error_max_turns', result: undefined })]);
    expect(events).toEqual([expect.objectContaining({ type: 'result', isError: true, text: '' })]);
  });

  it('an error line becomes an error event', () => {
    const { events } = parseAll([JSON.stringify({ type: 'error', error: { message: 'overloaded' } })]);
    expect(events).toEqual([{ type: 'error', message: 'overloaded' }]);
  });

  it('unknown JSON types are ignored; JSON without a type is plain text', () => {
    const { events, finalText } = parseAll([JSON.stringify({ type: 'stream_event', x: 1 }), '{"no":"type"}']);
    expect(events).toEqual([{ type: 'text', text: '{"no":"type"}' }]);
    expect(finalText).toBe('{"no":"type"}');
  });

  it('plain non-JSON lines become text and are the final text when there is no result', () => {
    const { events, finalText } = parseAll(['Working...', '{ not json', 'LOOP_COMPLETE']);
    expect(events).toEqual([
      { type: 'text', text: 'Working...' },
      { type: 'text', text: '{ not json' },
      { type: 'text', text: 'LOOP_COMPLETE' },
    ]);
    expect(finalText).toBe('Working...\n{ not json\nLOOP_COMPLETE');
  });

  it('the result text wins over plain text', () => {
    const { finalText } = parseAll([
      'echoed prompt line',
      'LOOP_COMPLETE',
      result({ result: 'not done yet' }),
    ]);
    expect(finalText).toBe('not done yet');
  });

  it('without a result or plain text, the last assistant text is the final text', () => {
    const { finalText } = parseAll([
      assistant('m1', [{ type: 'text', text: 'first' }]),
      assistant('m2', [
        { type: 'text', text: 'second' },
        { type: 'text', text: 'third' },
      ]),
      assistant('m3', [{ type: 'tool_use', id: 't', name: 'Read', input: {} }]),
    ]);
    expect(finalText).toBe('second\nthird');
  });

  it('an empty stream has empty final text', () => {
    expect(createStreamJsonParser().finalText()).toBe('');
  });

  it('property: any line that is not a JSON object is one text event with the same text', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.trimStart().startsWith('{')),
        (line) => {
          const parser = createStreamJsonParser();
          expect(parser.parseLine(line)).toEqual([{ type: 'text', text: line }]);
          expect(parser.finalText()).toBe(line);
        },
      ),
    );
  });
});

describe('createTextParser', () => {
  it('every line is text; the final text is all of it', () => {
    const p = createTextParser();
    expect(p.parseLine(result())).toEqual([{ type: 'text', text: result() }]);
    p.parseLine('LOOP_COMPLETE');
    expect(p.finalText()).toBe(`${result()}\nLOOP_COMPLETE`);
  });

  it('read a chunk at a time, it gives the same lines and final text as a line at a time, however the output is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('LOOP_COMPLETE', 'a\r', '', 'é😀')), {
          maxLength: 30,
        }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (lines, cuts) => {
          const output = lines.map((l) => `${l}\n`).join('');
          const byLine = createTextParser();
          const want = lines.map((l) => byLine.parseLine(l.endsWith('\r') ? l.slice(0, -1) : l));
          const byChunk = createTextParser();
          const at = [...new Set(cuts.map((c) => c % (output.length + 1)))].sort((a, b) => a - b);
          const pieces = [0, ...at, output.length]
            .slice(1)
            .map((end, i, ends) => output.slice(i === 0 ? 0 : ends[i - 1], end));
          const got = [...pieces.flatMap((p) => byChunk.parseChunk!(p)), ...byChunk.flush!()];
          const text = (events: AgentEvent[]) => events.map((e) => (e.type === 'text' ? e.text : '?'));
          expect(text(got).join('\n')).toBe(text(want.flat()).join('\n'));
          expect(byChunk.finalText()).toBe(byLine.finalText());
        },
      ),
    );
  });

  it('an unterminated last line comes with flush', () => {
    const p = createTextParser();
    expect(p.parseChunk!('work\nLOOP_')).toEqual([{ type: 'text', text: 'work' }]);
    expect(p.parseChunk!('COMPLETE')).toEqual([]);
    expect(p.flush!()).toEqual([{ type: 'text', text: 'LOOP_COMPLETE' }]);
    expect(p.finalText()).toBe('work\nLOOP_COMPLETE');
  });
});

describe('readUsage', () => {
  it('reads Anthropic usage and treats missing or non-numeric fields as 0', () => {
    expect(readUsage({ input_tokens: 3, output_tokens: 'x', cache_read_input_tokens: Number.NaN })).toEqual({
      inputTokens: 3,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(readUsage(undefined)).toBeUndefined();
    expect(readUsage(null)).toBeUndefined();
  });
});

function meterFor(lines: string[]): UsageMeter {
  const meter = new UsageMeter();
  for (const e of parseAll(lines).events) meter.add(e);
  return meter;
}

describe('UsageMeter', () => {
  it('repeated usage for the same message id is not double-counted', () => {
    const meter = meterFor([
      systemInit,
      assistant('msg_1', [{ type: 'text', text: 'a' }]),
      assistant('msg_1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }]),
      assistant('msg_2', [{ type: 'text', text: 'b' }], { input_tokens: 1, output_tokens: 2 }),
    ]);
    expect(meter.totals()).toEqual({
      input: 11,
      output: 7,
      cache_read: 1000,
      cache_write: 200,
      total: 1218,
    });
    expect(meter.costUsd).toBeUndefined();
  });

  it('a later report for the same message id replaces the earlier one', () => {
    const meter = meterFor([
      assistant('msg_1', [], { input_tokens: 10, output_tokens: 1 }),
      assistant('msg_1', [], { input_tokens: 10, output_tokens: 50 }),
    ]);
    expect(meter.usage()).toEqual({
      inputTokens: 10,
      outputTokens: 50,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });

  it('usage without a message id is summed', () => {
    const meter = new UsageMeter();
    const u = { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 };
    meter.add({ type: 'usage', usage: u });
    meter.add({ type: 'usage', usage: u });
    expect(meter.usage()).toEqual({
      inputTokens: 2,
      outputTokens: 4,
      cacheReadTokens: 6,
      cacheWriteTokens: 8,
    });
  });

  it('result usage is authoritative, and its cost is recorded', () => {
    const meter = meterFor([
      systemInit,
      assistant('msg_1', [{ type: 'text', text: 'a' }]),
      assistant('msg_2', [{ type: 'text', text: 'b' }]),
      result(),
    ]);
    expect(meter.totals()).toEqual({
      input: 30,
      output: 40,
      cache_read: 2000,
      cache_write: 300,
      total: 2370,
    });
    expect(meter.costUsd).toBe(0.0421);
    expect(meter.model).toBe(MODEL);
  });

  it('a result with zero or missing usage keeps the per-call sum', () => {
    const zeroUsage = { input_tokens: 0, output_tokens: 0 };
    expect(meterFor([assistant('m', []), result({ usage: zeroUsage })]).totals().total).toBe(1215);
    expect(meterFor([assistant('m', []), result({ usage: undefined })]).totals().total).toBe(1215);
  });

  it('reports context use against the model window', () => {
    const meter = meterFor([
      systemInit,
      assistant('m', [], { input_tokens: 1000, cache_read_input_tokens: 19_000 }),
    ]);
    expect(meter.contextPct()).toBe(10);
    expect(new UsageMeter().contextPct()).toBeNull();
    const unknown = new UsageMeter();
    unknown.add({
      type: 'usage',
      usage: { inputTokens: 5, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(unknown.contextPct()).toBeNull();
  });

  it('property: repeating any message any number of times never changes the totals', () => {
    const usageArb = fc.record({
      input_tokens: fc.nat(10_000),
      output_tokens: fc.nat(10_000),
      cache_read_input_tokens: fc.nat(10_000),
      cache_creation_input_tokens: fc.nat(10_000),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 6 }), usageArb), {
          selector: ([id]) => id,
          minLength: 1,
          maxLength: 6,
        }),
        fc.array(fc.nat(20), { maxLength: 20 }),
        (messages, repeats) => {
          const once = messages.map(([id, u]) => assistant(id, [], u));
          const extra = repeats.map((r) => once[r % once.length]!);
          const a = meterFor(once).totals();
          const b = meterFor([...once, ...extra]).totals();
          expect(b).toEqual(a);
          const sum = (k: keyof (typeof messages)[number][1]) => messages.reduce((s, [, u]) => s + u[k], 0);
          expect(a.input).toBe(sum('input_tokens'));
          expect(a.output).toBe(sum('output_tokens'));
          expect(a.cache_read).toBe(sum('cache_read_input_tokens'));
          expect(a.cache_write).toBe(sum('cache_creation_input_tokens'));
          expect(a.total).toBe(a.input + a.output + a.cache_read + a.cache_write);
        },
      ),
    );
  });
});

describe('addTotals', () => {
  it('adds field by field', () => {
    const a = { input: 1, output: 2, cache_read: 3, cache_write: 4, total: 10 };
    expect(addTotals(a, a)).toEqual({ input: 2, output: 4, cache_read: 6, cache_write: 8, total: 20 });
  });
});

describe('UsageMeter cost while an agent runs', () => {
  it('sums per-call costs, prefers the final reported cost, and otherwise estimates from list prices', async () => {
    const { UsageMeter } = await import('../../../../src/agent/usage-meter.ts');
    const u = (input: number, output: number) => ({
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    const perStep = new UsageMeter();
    perStep.add({ type: 'usage', usage: u(100, 10), messageId: 's1', costUsd: 0.2 });
    perStep.add({ type: 'usage', usage: u(100, 10), messageId: 's2', costUsd: 0.3 });
    expect(perStep.spentUsd()).toBeCloseTo(0.5);
    expect(perStep.costIsEstimate()).toBe(false);
    perStep.add({ type: 'result', text: 'done', isError: false, costUsd: 0.55 });
    expect(perStep.spentUsd()).toBeCloseTo(0.55);

    const estimated = new UsageMeter();
    estimated.add({ type: 'usage', usage: u(1_000_000, 0), messageId: 'm1', model: 'claude-sonnet-4-5' });
    expect(estimated.spentUsd()).toBeCloseTo(3);
    expect(estimated.costIsEstimate()).toBe(true);

    const unknown = new UsageMeter();
    unknown.add({ type: 'usage', usage: u(1000, 0), messageId: 'm1', model: 'some-local-model' });
    expect(unknown.spentUsd()).toBeUndefined();
  });
});
