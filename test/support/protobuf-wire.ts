/**
 * The protobuf wire format, just enough to read what an OTLP exporter posts as
 * `application/x-protobuf` (the OpenTelemetry packages serialize requests but have no decoder
 * for them). Fields come back by number; callers know the schema.
 * https://protobuf.dev/programming-guides/encoding/
 */
export interface WireField {
  number: number;
  /** Varints (wire type 0) as bigint; length-delimited (2) and fixed (1, 5) fields as bytes. */
  value: bigint | Buffer;
}

function readVarint(bytes: Buffer, start: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  let at = start;
  for (;;) {
    if (at >= bytes.length) throw new Error('protobuf: truncated varint');
    const byte = bytes[at++];
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, at];
    shift += 7n;
  }
}

/** The fields of one message, in wire order (repeated fields appear once per element). */
export function wireFields(bytes: Buffer): WireField[] {
  const fields: WireField[] = [];
  let at = 0;
  while (at < bytes.length) {
    const [tag, next] = readVarint(bytes, at);
    at = next;
    const number = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (wireType === 0) {
      const [value, after] = readVarint(bytes, at);
      fields.push({ number, value });
      at = after;
    } else if (wireType === 2) {
      const [length, after] = readVarint(bytes, at);
      const end = after + Number(length);
      if (end > bytes.length) throw new Error('protobuf: truncated field');
      fields.push({ number, value: bytes.subarray(after, end) });
      at = end;
    } else if (wireType === 1 || wireType === 5) {
      const size = wireType === 1 ? 8 : 4;
      fields.push({ number, value: bytes.subarray(at, at + size) });
      at += size;
    } else {
      throw new Error(`protobuf: unsupported wire type ${wireType}`);
    }
  }
  return fields;
}

/** The length-delimited values of field `number` (sub-messages, strings, bytes). */
export function messages(bytes: Buffer, number: number): Buffer[] {
  return wireFields(bytes)
    .filter((field) => field.number === number && Buffer.isBuffer(field.value))
    .map((field) => field.value as Buffer);
}

/** The first value of field `number`, if present. */
export function first(bytes: Buffer, number: number): bigint | Buffer | undefined {
  return wireFields(bytes).find((field) => field.number === number)?.value;
}
