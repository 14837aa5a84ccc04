/** A node of the JSON Schema `configJsonSchema` returns (draft 7, as zod writes it). */
export type JsonSchemaNode = Record<string, unknown>;

/** One key of ralph.yml: its dotted path (`hats.<hat>.triggers`) and its JSON Schema node. */
export interface ConfigKey {
  path: string;
  node: JsonSchemaNode;
}

/** The command that rewrites docs/reference/config.md and schema/ralph.schema.json. */
export const CONFIG_REFERENCE_COMMAND = 'npm run docs';

const isNode = (v: unknown): v is JsonSchemaNode => typeof v === 'object' && v !== null && !Array.isArray(v);
const isObjectNode = (v: unknown): v is JsonSchemaNode => isNode(v) && v.type === 'object';

function propertiesOf(node: JsonSchemaNode): [string, JsonSchemaNode][] {
  return isNode(node.properties)
    ? Object.entries(node.properties).filter((e): e is [string, JsonSchemaNode] => isNode(e[1]))
    : [];
}

/** The keys below one key: an object's properties, a map's entries (`<hat>`), list items (`[]`), union variants. */
function keysBelow(node: JsonSchemaNode, path: string): ConfigKey[] {
  if (isNode(node.properties)) return configKeys(node, path);
  const entry = node.additionalProperties;
  if (isObjectNode(entry)) {
    const name =
      isNode(node.propertyNames) && typeof node.propertyNames.title === 'string'
        ? node.propertyNames.title
        : 'name';
    const entryPath = `${path}.<${name}>`;
    return [{ path: entryPath, node: entry }, ...keysBelow(entry, entryPath)];
  }
  if (isObjectNode(node.items)) return keysBelow(node.items, `${path}[]`);
  if (Array.isArray(node.anyOf))
    return node.anyOf.filter(isNode).flatMap((variant) => keysBelow(variant, path));
  return [];
}

/** Every key of the schema at any depth, in schema order, each before the keys below it. */
export function configKeys(schema: JsonSchemaNode, prefix = ''): ConfigKey[] {
  return propertiesOf(schema).flatMap(([name, node]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    return [{ path, node }, ...keysBelow(node, path)];
  });
}

const code = (v: unknown) => `\`${JSON.stringify(v)}\``;

/** A key's type in a few words: `integer > 0`, `"text" | "stream-json"`, `list of string`. */
export function typeLabel(node: JsonSchemaNode): string {
  if ('const' in node) return code(node.const);
  if (Array.isArray(node.enum)) return node.enum.map(code).join(' | ');
  if (Array.isArray(node.anyOf)) return node.anyOf.filter(isNode).map(typeLabel).join(' or ');
  if (node.type === 'array') return `list of ${isNode(node.items) ? typeLabel(node.items) : 'any'}`;
  if (node.type === 'object') {
    if (isNode(node.properties)) return 'object';
    return isNode(node.additionalProperties)
      ? `map of ${isObjectNode(node.additionalProperties) ? 'object' : typeLabel(node.additionalProperties)}`
      : 'object';
  }
  const base = String(node.type ?? 'any');
  if (node.exclusiveMinimum !== undefined) return `${base} > ${node.exclusiveMinimum}`;
  if (typeof node.minimum === 'number' && node.minimum >= 0) return `${base} ≥ ${node.minimum}`;
  return base;
}

/** The facts line of one key: type, default (none for a section: its keys say theirs), examples. */
function facts(node: JsonSchemaNode): string {
  const parts = [`type: ${typeLabel(node)}`];
  const section = isNode(node.properties);
  if ('default' in node && !section) parts.push(`default: ${code(node.default)}`);
  else if (!section) parts.push('default: not set');
  if (Array.isArray(node.examples)) parts.push(`example: ${node.examples.map(code).join(', ')}`);
  return parts.join(' · ');
}

const description = (node: JsonSchemaNode) => (typeof node.description === 'string' ? node.description : '');

/** A GitHub heading anchor (`## \`event_loop\`` → `event_loop`). */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');

/**
 * docs/reference/config.md: one section per top-level key of ralph.yml, each key with its path,
 * type, default, description and example, from the JSON Schema `configJsonSchema` returns (pure;
 * scripts/docs/config.mjs writes it).
 */
export function configReference(schema: JsonSchemaNode): string {
  const sections = propertiesOf(schema).map(([name, node]) => {
    const lines = [`## \`${name}\``, '', description(node), ''];
    if (!isNode(node.properties) && !isObjectNode(node.additionalProperties)) lines.push(facts(node), '');
    for (const key of keysBelow(node, name))
      lines.push(`### \`${key.path}\``, '', facts(key.node), '', description(key.node), '');
    return lines.join('\n');
  });
  const toc = propertiesOf(schema).map(([name]) => `[\`${name}\`](#${anchor(name)})`);
  return [
    '# Configuration reference (`ralph.yml`)',
    '',
    `<!-- Generated from the config schema (src/config/schema.ts, src/config/schema/) by \`${CONFIG_REFERENCE_COMMAND}\`; do not edit by hand. -->`,
    '',
    `This page is generated from the zod schema that validates ralph.yml: each key's text is its description there, and the JSON Schema editors use (\`schema/ralph.schema.json\`, \`ralph config schema\`) carries the same text. To change it, edit the schema in \`src/config/\` and run \`${CONFIG_REFERENCE_COMMAND}\`.`,
    '',
    // What is about the file as a whole has one home each, in docs/concepts/: linked, not copied.
    "How the layers (defaults, your user config, `ralph.yml`, a preset, `RALPH_AGENT`, `--set`, the flags) combine, presets, and how errors are reported: [configuration](../concepts/configuration.md). The patterns of `gates.protect`, `event_loop.idle_watch` and `tdd.allowed_paths`: [path patterns](../concepts/path-patterns.md). What every agent process is given: [the agent's environment](../concepts/agent-environment.md).",
    '',
    `Sections: ${toc.join(' · ')}.`,
    '',
    ...sections,
  ].join('\n');
}
