import { COMMAND_BACKEND } from '../schema/backend-names.ts';

// ralph-orchestrator's hat `backend:` in its object forms (its HatBackend enum):
//   {type: NAME, args: [..]}         a named backend with arguments
//   {type: kiro, agent: NAME, ..}    a kiro agent (Ralph has no kiro driver: the name's error says so)
//   {command: EXE, args: [..]}       a custom command
// Its hat `backend_args` (alias `args`) come after the backend's own arguments.

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/**
 * The hat with an object-form `backend` read as Ralph's `backend`, `command` and `args` (pure), and a
 * note saying so; undefined when the backend is not in an object form Ralph can read (left to the
 * schema's error).
 */
export function mapHatBackend(hat: Plain): { hat: Plain; note: string } | undefined {
  const backend = hat.backend;
  if (!isPlain(backend)) return undefined;
  const own = backend.args === undefined ? [] : strings(backend.args);
  if (own === undefined) return undefined;
  const extra = strings(hat.args) ?? strings(hat.backend_args) ?? [];
  const { args: _a, backend_args: _b, ...rest } = hat;
  const args = [...own, ...extra];
  const withArgs = args.length > 0 ? { args } : {};
  if (typeof backend.type === 'string' && backend.command === undefined) {
    const shown = args.length > 0 ? `, args [${args.join(', ')}]` : '';
    return {
      hat: { ...rest, backend: backend.type, ...withArgs },
      note: `backend {type: ${backend.type}, …} read as backend ${backend.type}${shown}`,
    };
  }
  if (typeof backend.command === 'string' && backend.type === undefined) {
    return {
      hat: { ...rest, backend: COMMAND_BACKEND, command: backend.command, ...withArgs },
      note: `backend {command: ${backend.command}, …} read as backend custom, command ${backend.command}`,
    };
  }
  return undefined;
}
