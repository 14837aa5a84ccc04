// Writes the generated config reference (docs/reference/config.md) and the shipped JSON Schema
// (schema/ralph.schema.json) from the built library, so both say what the zod schema says.
// Run `npm run build` first; test/cli/config-reference.test.ts fails when either is stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configReference } from '../../dist/config/reference/config-reference.js';
import { configJsonSchema } from '../../dist/config/reference/json-schema.js';
import { packageVersion } from '../../dist/paths-package.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const schema = configJsonSchema(packageVersion());
const outputs = {
  'schema/ralph.schema.json': `${JSON.stringify(schema, null, 2)}\n`,
  'docs/reference/config.md': configReference(schema),
};
for (const [file, text] of Object.entries(outputs)) {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
  process.stdout.write(`wrote ${file}\n`);
}
