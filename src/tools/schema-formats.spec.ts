import { describe, expect, it } from '@jest/globals';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import fc from 'fast-check';
import { linearStringFormats } from './schema-formats.js';

const ours = new Map(
  linearStringFormats().map(([name, definition]) => [
    name,
    definition.validate as (text: string) => boolean,
  ]),
);

/** ajv-formats' own check of a format (backtracking regular expressions). */
function native(name: string): (text: string) => boolean {
  const value: unknown = (fullFormats as Record<string, unknown>)[name];
  if (value instanceof RegExp) return (text) => value.test(text);
  if (typeof value === 'function') return value as (text: string) => boolean;
  return (value as { validate: (text: string) => boolean }).validate;
}

function agree(name: string, texts: readonly string[]): void {
  const reference = native(name);
  const linear = ours.get(name);
  if (!linear) throw new Error(`no linear format ${name}`);
  for (const text of texts) {
    expect({ name, text, valid: linear(text) }).toEqual({ name, text, valid: reference(text) });
  }
}

const octet = fc.constantFrom(
  '0', '00', '01', '1', '9', '10', '16', '31', '32', '99', '100', '127', '168', '169', '172',
  '192', '199', '200', '223', '224', '249', '250', '254', '255', '256', '300',
); // prettier-ignore
const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
const label = fc.stringMatching(/^[a-zé0-9-]{1,6}$/);
const host = fc.oneof(
  ipv4,
  fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
);
const url = fc
  .tuple(
    fc.constantFrom('http://', 'https://', 'ftp://', 'HTTP://', 'mailto:'),
    fc.constantFrom('', 'user@', 'u:p@', 'a@b@', ':@'),
    host,
    fc.constantFrom('', ':80', ':8080', ':1'),
    fc.constantFrom('', '/', '/a b', '/x?y#z', '/%41'),
  )
  .map((parts) => parts.join(''));
const noise = fc
  .array(fc.constantFrom(..."aZé0.-_~:/?#[]@!$&'()*+,;=% \n{}PTYMDWHS".split(''), '😀', '\u00a0'), {
    maxLength: 30,
  })
  .map((chars) => chars.join(''));

describe('linear string formats agree with ajv-formats', () => {
  const names = [...ours.keys()];

  it('covers every string format ajv-formats has', () => {
    for (const name of Object.keys(fullFormats)) {
      const value: unknown = (fullFormats as Record<string, unknown>)[name];
      const numeric = typeof value === 'object' && value !== null && 'type' in value;
      if (value !== true && !numeric) expect(names).toContain(name);
    }
  });

  it('on typical and odd values', () => {
    agree('hostname', [
      'example.com',
      'a'.repeat(63) + '.com',
      `${'a.'.repeat(126)}a`,
      `${'a.'.repeat(126)}ab`,
      `${'a.'.repeat(126)}a.`,
      `${'a.'.repeat(127)}`,
      '-a.com',
      'a..b',
      '',
    ]);
    agree('duration', [
      'P',
      'P1D',
      'PT',
      'PT1H',
      'P1DT',
      'P1DT2H',
      'PT1H2M3S',
      'P2W',
      'P1Y2M',
      'PTX',
    ]);
    agree('url', [
      'http://10.0.0.1/',
      'http://127.0.0.1',
      'http://169.254.169.254/latest',
      'http://169.25.4.1',
      'http://192.168.1.1',
      'http://192.169.1.1',
      'http://172.16.0.1',
      'http://172.32.0.1',
      'http://172.160.0.1',
      'http://8.8.8.8:53/x',
      'https://example.com/a',
      'http://a@10.0.0.1@8.8.8.8/',
    ]);
    agree('uri', ['urn:isbn:0451450523', 'http://[::1]:80/', 'a', 'a:b', '//x']);
    agree('email', ['a@b.co', 'a.b@c', 'a..b@c', '@c']);
  });

  for (const name of names) {
    it(`${name} on random values (property)`, () => {
      const values = name === 'url' ? fc.oneof(url, noise) : fc.oneof(noise, url, ipv4);
      fc.assert(
        fc.property(fc.array(values, { minLength: 1, maxLength: 10 }), (texts) => {
          agree(name, texts);
        }),
        { numRuns: 150 },
      );
    });
  }
});

describe('linear string formats take linear time', () => {
  it('on the inputs that make ajv-formats backtrack', () => {
    const started = performance.now();
    // ajv-formats' url takes quadratic time on this: minutes at this length.
    expect(ours.get('url')?.(`http://${'@:'.repeat(100_000)}\n`)).toBe(false);
    expect(ours.get('uri')?.(`a:${'%'.repeat(200_000)}`)).toBe(false);
    expect(ours.get('email')?.(`${'a.'.repeat(100_000)}@`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
