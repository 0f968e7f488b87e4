// The one thing sp takes from a session's wire.jsonl (docs/formats/kimi.md §1): when the session
// began. The context file records no times; the wire log's records are `{timestamp (epoch seconds),
// message}` after a `{"type": "metadata"}` first line. Only its head is read, and only from a
// regular file (a link is not followed).
import { closeSync, lstatSync, openSync, readSync } from 'node:fs';
import { jsonObject } from '../../lib/core/json.js';
import { wirePathOf } from './paths.js';

const HEAD_BYTES = 64 * 1024;

/** Epoch seconds of the first timed record of the wire log beside `contextPath`, if there is one. */
export function wireStartTime(contextPath: string): number | undefined {
  const path = wirePathOf(contextPath);
  if (!path) return undefined;
  let text: string;
  try {
    if (!lstatSync(path).isFile()) return undefined;
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(HEAD_BYTES);
      const read = readSync(fd, buffer, 0, HEAD_BYTES, 0);
      text = buffer.subarray(0, read).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  // Whole lines only: the last one may be cut at HEAD_BYTES.
  for (const line of text.split('\n').slice(0, -1)) {
    const ts = jsonObject(line)?.timestamp;
    if (typeof ts === 'number' && Number.isFinite(ts) && ts > 0) return ts;
  }
  return undefined;
}
