/** How deep a value is walked before the rest is cut (`[MaxDepth]`). */
const MAX_DEPTH = 32;

/**
 * Converts anything into plain JSON data: cycles, bigints, throwing getters and `toJSON`s,
 * Maps and Sets never make a record unwritable. Strings longer than `maxString` are cut.
 */
export function toJsonSafe(value: unknown, maxString = Number.POSITIVE_INFINITY): unknown {
  const ancestors: object[] = [];
  const walk = (v: unknown, depth: number): unknown => {
    switch (typeof v) {
      case 'string':
        return v.length > maxString ? `${v.slice(0, maxString)}… [${v.length - maxString} more chars]` : v;
      case 'number':
        return Number.isFinite(v) ? v : String(v);
      case 'boolean':
        return v;
      case 'bigint':
        return v.toString();
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
    }
    if (v === null) return null;
    const obj = v as object;
    if (ancestors.includes(obj)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[MaxDepth]';
    ancestors.push(obj);
    try {
      if (obj instanceof Error) return { name: obj.name, message: walk(obj.message, depth + 1) };
      const toJSON = (obj as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return walk(toJSON.call(obj), depth + 1);
      if (Array.isArray(obj)) return obj.map((x) => walk(x, depth + 1) ?? null);
      if (obj instanceof Set) return [...obj].map((x) => walk(x, depth + 1) ?? null);
      const out: Record<string, unknown> = {};
      const keys: unknown[] = obj instanceof Map ? [...obj.keys()] : Object.keys(obj);
      for (const k of keys) {
        // Read each value on its own so one throwing getter costs only its key.
        try {
          const x = obj instanceof Map ? obj.get(k) : (obj as Record<string, unknown>)[k as string];
          const w = walk(x, depth + 1);
          if (w !== undefined) out[String(k)] = w;
        } catch {
          out[String(k)] = '[Unreadable]';
        }
      }
      return out;
    } catch {
      return '[Unreadable]';
    } finally {
      ancestors.pop();
    }
  };
  return walk(value, 0);
}
