/**
 * The ways a secret can come back in text: an upstream that echoes a credential may quote it
 * raw, inside JSON (escaped), inside a URL or form (percent-encoded, once or twice), as part of a
 * Basic credential (`user:key` in base64, at any byte offset), or in hex. Case is handled by the
 * matcher, truncation by matching fragments of these spellings.
 */
export function secretSpellings(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const bytes = Buffer.from(secret, 'utf8');
  const spellings = [
    secret,
    json,
    json.replaceAll('/', '\\/'),
    secret.replace(/[^A-Za-z0-9]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replaceAll('%20', '+'),
    encodeURIComponent(encodeURIComponent(secret)),
    encodeURI(secret),
    bytes.toString('hex'),
    ...base64Cores(bytes),
  ];
  return [...new Set(spellings)].filter((spelling) => spelling !== '');
}

/**
 * The part of base64(prefix + secret) that depends on the secret alone, for a prefix of 0, 1 or
 * 2 bytes (mod 3): whatever comes before (`user:`), these characters are the same. The first
 * and last 4-character groups can mix in bytes around the secret and are left out; base64url
 * spellings too.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const start = offset === 0 ? 0 : 4;
    const whole = Math.floor((offset + bytes.length) / 3) * 4;
    const core = encoded.slice(start, whole);
    if (core.length > 0) {
      cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
    }
  }
  return cores;
}
