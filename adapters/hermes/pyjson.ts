// JSON text as Hermes writes it: Python's `json.dumps` with its defaults (", " and ": " between
// items, non-ASCII escaped as \uXXXX). Hermes stores `tool_calls`, `reasoning_details` and tool
// arguments this way, so the writer produces the same bytes for the same value, and capture can
// tell when a stored string is NOT what json.dumps would give (then it keeps the string itself).

function pyString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += text[i];
  }
  return out + '"';
}

function pyNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  return JSON.stringify(value);
}

export function pyJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return pyString(value);
    case 'number':
      return pyNumber(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (Array.isArray(value)) return `[${value.map((v) => pyJson(v)).join(', ')}]`;
      return `{${Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${pyString(k)}: ${pyJson(v)}`)
        .join(', ')}}`;
    default:
      return 'null';
  }
}
