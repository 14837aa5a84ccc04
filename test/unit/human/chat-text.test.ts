import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defuseMentions, MENTION_BREAK } from '../../../src/forge/mentions.ts';
import {
  discordText,
  slackText,
  splitMessage,
  TELEGRAM_MAX_TEXT,
  telegramText,
} from '../../../src/human/chat-text.ts';
import { webhookBody } from '../../../src/human/notify.ts';

const ATTACK = '<!channel> @everyone @here <@U123> <@&42> **bold** [link](http://x) <http://evil|click> a&b';

/** The text back from a defused one: the breaks after `@` taken out. */
const undefuse = (t: string) => t.replaceAll(`@${MENTION_BREAK}`, '@');
const unslack = (t: string) =>
  undefuse(t).replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
const undiscord = (t: string) => undefuse(t.replace(/\\(.)/gs, '$1'));

/** Agent text: any characters, the ones chats parse made likely (the break itself left out). */
const agentText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '<',
        '>',
        '&',
        '@',
        '!',
        '*',
        '_',
        '~',
        '`',
        '|',
        '[',
        ']',
        '(',
        ')',
        '#',
        '\\',
        ' ',
        '\n',
      ),
      fc.constantFrom('channel', 'here', 'everyone', 'U123', 'amp;', 'lt;', 'alice', 'é', '😀'),
      fc.string({ maxLength: 3 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join('').replaceAll(MENTION_BREAK, ''));

/** A mention as GitHub, Slack and Telegram read plain text: `@` at a word's start, then a name. */
const PLAIN_MENTION = /(^|[^\p{L}\p{N}_`])@[\p{L}\p{N}_]/u;

describe('chat text: agent text mentions nobody and hides no link', () => {
  it('Slack: no <!…>, <@…> or <…|…> survives; no plain @name; unescaping gives the text back (property)', () => {
    fc.assert(
      fc.property(agentText, (text) => {
        const out = slackText(text);
        expect(out).not.toMatch(/[<>]/);
        expect(out).not.toContain('<!');
        expect(out).not.toContain('<@');
        expect(out).not.toMatch(PLAIN_MENTION);
        expect(unslack(out)).toBe(text);
      }),
    );
    expect(slackText(ATTACK)).toBe(
      '&lt;!channel&gt; @\u200beveryone @\u200bhere &lt;@\u200bU123&gt; &lt;@&amp;42&gt; **bold** [link](http://x) &lt;http://evil|click&gt; a&amp;b',
    );
  });

  it('Discord: every markdown character escaped, no plain @name; unescaping gives the text back (property)', () => {
    fc.assert(
      fc.property(agentText, (text) => {
        const out = discordText(text);
        // Every markdown character is preceded by a backslash that is not itself escaped.
        const bare = out.replace(/\\./gs, '');
        expect(bare).not.toMatch(/[*~`|<>[\]()#\\]/);
        // An unescaped `_` only ever sits between two letters or digits, where it starts nothing.
        expect(bare.replace(/(?<=[\p{L}\p{N}])_(?=[\p{L}\p{N}])/gu, '')).not.toContain('_');
        expect(out).not.toMatch(PLAIN_MENTION);
        expect(undiscord(out)).toBe(text);
      }),
    );
    expect(discordText('**bold** [link](http://x) @everyone __u__ max_iterations')).toBe(
      '\\*\\*bold\\*\\* \\[link\\]\\(http://x\\) @\u200beveryone \\_\\_u\\_\\_ max_iterations',
    );
  });

  it('Telegram (plain text): only @names change; the rest reads as the agent wrote it (property)', () => {
    fc.assert(
      fc.property(agentText, (text) => {
        const out = telegramText(text);
        expect(out).not.toMatch(PLAIN_MENTION);
        expect(undefuse(out)).toBe(text);
      }),
    );
    expect(telegramText(ATTACK)).toBe(
      '<!channel> @\u200beveryone @\u200bhere <@\u200bU123> <@&42> **bold** [link](http://x) <http://evil|click> a&b',
    );
  });

  it('leaves addresses and code alone, and defusing twice changes nothing more', () => {
    expect(defuseMentions('mail bob@example.com or `@decorator`')).toBe(
      'mail bob@example.com or `@decorator`',
    );
    expect(defuseMentions('@acme/reviewers, (@alice)')).toBe('@\u200bacme/reviewers, (@\u200balice)');
    fc.assert(
      fc.property(agentText, (t) => {
        expect(defuseMentions(defuseMentions(t))).toBe(defuseMentions(t));
      }),
    );
  });
});

describe('webhook payloads', () => {
  const n = {
    kind: 'question' as const,
    run_id: 'r-1',
    workspace: '/w',
    message: ATTACK,
    at: '2026-01-01T00:00:00.000Z',
    detail: {},
  };

  it('Discord: allowed_mentions forbids every ping and link previews are off; the title stays bold', () => {
    const body = webhookBody('discord', n) as Record<string, unknown>;
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.flags).toBe(4);
    expect(body.content).toMatch(/^\*\*ralph · question\*\* — \\<!channel\\> @\u200beveryone/);
  });

  it('Slack: the text escaped, the title bold; the json format carries the text as it is', () => {
    expect((webhookBody('slack', n) as { text: string }).text).toMatch(
      /^\*ralph · question\* — &lt;!channel&gt;/,
    );
    expect(webhookBody('json', n)).toEqual(n);
  });
});

const pieces = fc.array(
  fc.oneof(fc.string(), fc.constantFrom('\n', ' ', '😀', 'é', '漢字'), fc.string({ unit: 'grapheme' })),
  {
    maxLength: 60,
  },
);

describe('splitMessage', () => {
  it('parts fit, keep their order and lose nothing; no emoji is cut in half', () => {
    fc.assert(
      fc.property(pieces, fc.integer({ min: 2, max: 40 }), (chunks, max) => {
        const text = chunks.join('');
        const parts = splitMessage(text, max);
        expect(parts.join('')).toBe(text);
        for (const p of parts) {
          expect(p.length).toBeLessThanOrEqual(max);
          expect(/^[\uDC00-\uDFFF]/.test(p)).toBe(false);
          expect(/[\uD800-\uDBFF]$/.test(p) && p !== parts.at(-1)).toBe(false);
        }
      }),
    );
  });

  it('a cut falls after a line break that fits, else after a space', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ' ') }), { minLength: 1, maxLength: 20 }),
        (lines) => {
          const text = lines.join('\n');
          const parts = splitMessage(text, 10);
          let at = 0;
          for (const p of parts.slice(0, -1)) {
            const window = text.slice(at, at + 10);
            if (window.includes('\n')) expect(p.endsWith('\n')).toBe(true);
            else if (window.includes(' ')) expect(p.endsWith(' ')).toBe(true);
            at += p.length;
          }
        },
      ),
    );
  });

  it('a 5,000-character question becomes two messages under Telegram limit, counted in UTF-16 units', () => {
    const line = `${'😀'.repeat(20)} ${'x'.repeat(58)}\n`; // 100 UTF-16 units, 80 code points
    const parts = splitMessage(line.repeat(50));
    expect(parts.map((p) => p.length)).toEqual([4000, 1000]);
    expect(parts.every((p) => p.length <= TELEGRAM_MAX_TEXT)).toBe(true);
    expect(splitMessage('short')).toEqual(['short']);
  });
});
