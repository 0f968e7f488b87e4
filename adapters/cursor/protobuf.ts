// The tiny protobuf subset of Cursor's CLI `store.db` index nodes (docs/formats/cursor.md §7): field 1
// (bytes, 32) = a message blob's sha256, field 2 (bytes, 32) = a subtree's; other fields skipped.

export interface PbField {
  field: number;
  wire: number;
  bytes?: Buffer;
  value?: bigint;
}

function varint(buf: Buffer, at: number): { value: bigint; next: number } {
  let value = 0n;
  let shift = 0n;
  for (let i = at; i < buf.length && i < at + 10; i += 1) {
    value |= BigInt(buf[i] & 0x7f) << shift;
    if ((buf[i] & 0x80) === 0) return { value, next: i + 1 };
    shift += 7n;
  }
  throw new Error('truncated varint');
}

/** The fields of one message, in order; throws on a malformed buffer. */
export function pbFields(buf: Buffer): PbField[] {
  const out: PbField[] = [];
  let at = 0;
  while (at < buf.length) {
    const key = varint(buf, at);
    at = key.next;
    const field = Number(key.value >> 3n);
    const wire = Number(key.value & 7n);
    if (field === 0) throw new Error('field 0');
    if (wire === 0) {
      const v = varint(buf, at);
      out.push({ field, wire, value: v.value });
      at = v.next;
    } else if (wire === 2) {
      const len = varint(buf, at);
      const end = len.next + Number(len.value);
      if (end > buf.length) throw new Error('length past the end');
      out.push({ field, wire, bytes: buf.subarray(len.next, end) });
      at = end;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`wire type ${wire}`);
    if (at > buf.length) throw new Error('truncated field');
  }
  return out;
}

/** Encodes refs as an index node (tests and a future writer): `[1|2, sha256 hex]` pairs, in order. */
export function pbNode(refs: Array<[1 | 2, string]>): Buffer {
  return Buffer.concat(refs.map(([field, hex]) => Buffer.concat([Buffer.from([(field << 3) | 2, 32]), Buffer.from(hex, 'hex')])));
}
