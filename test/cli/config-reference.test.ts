import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_REFERENCE_COMMAND,
  configKeys,
  configReference,
  type JsonSchemaNode,
} from '../../src/config/reference/config-reference.ts';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { ROOT } from '../helpers/workspace.ts';

/** The JSON Schema as `ralph config schema` prints it now. */
async function currentSchema(): Promise<JsonSchemaNode> {
  const r = await runCliInMemory(['config', 'schema'], { cwd: ROOT });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as JsonSchemaNode;
}

const stale = (file: string) =>
  `${file} is stale: it differs from what the config schema generates now; run \`${CONFIG_REFERENCE_COMMAND}\` and commit the result`;

describe('generated config reference (docs/reference/config.md) and schema/ralph.schema.json', () => {
  it('both are what the generator produces from the current schema', async () => {
    const schema = await currentSchema();
    const shipped = readFileSync(join(ROOT, 'schema', 'ralph.schema.json'), 'utf8');
    expect(shipped === `${JSON.stringify(schema, null, 2)}\n`, stale('schema/ralph.schema.json')).toBe(true);
    const doc = readFileSync(join(ROOT, 'docs', 'reference', 'config.md'), 'utf8');
    expect(doc === configReference(schema), stale('docs/reference/config.md')).toBe(true);
  });

  it('every key at any depth has a description (editor hover text and the reference say what it does)', async () => {
    const keys = configKeys(await currentSchema());
    // The walk reaches every kind of nesting: sections, objects in sections, map entries, union variants.
    expect(keys.map((k) => k.path)).toEqual(
      expect.arrayContaining([
        'event_loop.max_iterations',
        'gates.tests.command',
        'memories.filter.types',
        'hats.<hat>',
        'hats.<hat>.triggers',
        'hats.<hat>.scratchpad.enabled',
        'core.scratchpad.path',
        'events.<topic>.on_trigger',
        'RObot.telegram.bot_token',
      ]),
    );
    const undescribed = keys.filter(
      (k) => typeof k.node.description !== 'string' || k.node.description.trim() === '',
    );
    expect(
      undescribed.map((k) => k.path),
      'these keys have no description: add .meta({ description }) in src/config/schema/ (or schema.ts)',
    ).toEqual([]);
    for (const k of keys) expect(k.node.markdownDescription, k.path).toBe(k.node.description);
  });

  it('the reference has one section per top-level key and an entry per key with its type and default', async () => {
    const schema = await currentSchema();
    const doc = configReference(schema);
    for (const top of Object.keys(schema.properties as object)) expect(doc).toContain(`\n## \`${top}\`\n`);
    for (const k of configKeys(schema).filter((k) => k.path.includes('.')))
      expect(doc).toContain(`\n### \`${k.path}\`\n`);
    expect(doc).toContain(
      '### `event_loop.max_iterations`\n\ntype: integer > 0 · default: `100` · example: `20`\n',
    );
    expect(doc).toContain('### `cli.prompt_mode`\n\ntype: `"stdin"` | `"arg"` · default: `"stdin"`\n');
    expect(doc).toContain('### `event_loop.max_cost_usd`\n\ntype: number > 0 · default: not set');
    expect(doc).toContain('[path patterns](../concepts/path-patterns.md)');
  });
});
