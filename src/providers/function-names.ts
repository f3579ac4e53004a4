import { createHash } from 'node:crypto';

/** What OpenAI-compatible APIs accept as a function name. */
const WIRE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The names one request's tools go by on an OpenAI-compatible wire. MCP allows tool names of
 * up to 128 characters with `.` (SEP-986) and the gateway allows `.` too, while those APIs take
 * `[A-Za-z0-9_-]{1,64}`: a name that fits is sent as is, any other as a stable alias (its
 * allowed characters, cut short, then `_` and 8 hex digits of its SHA-256), and the model's
 * calls are mapped back to the real name. The aliases are per request and deterministic, so a
 * conversation's earlier tool calls map the same way on every turn.
 *
 * The mapping is one to one: the request's own names that fit are claimed first, and an alias
 * that is taken (a tool may be named like another's alias; two long names may share a prefix)
 * is hashed again, so the model never sees two tools under one name.
 */
export class FunctionNames {
  private readonly toWire = new Map<string, string>();
  private readonly fromWire = new Map<string, string>();

  constructor(names: Iterable<string>) {
    const all = [...names];
    for (const name of all) if (WIRE_NAME.test(name)) this.add(name);
    for (const name of all) this.add(name);
  }

  /** The name the provider sees. */
  wire(name: string): string {
    return this.toWire.get(name) ?? this.add(name);
  }

  /** The tool a name from the model means (a name it made up stays as it is). */
  original(wireName: string): string {
    return this.fromWire.get(wireName) ?? wireName;
  }

  private add(name: string): string {
    const known = this.toWire.get(name);
    if (known !== undefined) return known;
    let wire = name;
    for (let attempt = 0; !WIRE_NAME.test(wire) || this.fromWire.has(wire); attempt++) {
      wire = alias(name, attempt);
    }
    this.toWire.set(name, wire);
    this.fromWire.set(wire, name);
    return wire;
  }
}

function alias(name: string, attempt: number): string {
  const hashed = attempt === 0 ? name : `${name}#${attempt}`;
  const digest = createHash('sha256').update(hashed).digest('hex').slice(0, 8);
  const readable = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 55);
  return `${readable}_${digest}`;
}
