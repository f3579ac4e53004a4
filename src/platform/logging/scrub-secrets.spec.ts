import { describe, expect, it } from '@jest/globals';
import { configSecrets, urlSecrets } from './config-secrets.js';
import { loadConfig } from '../config/load-config.js';
import { SecretScrubber, scrubJsonLine, scrubSecrets } from './scrub-secrets.js';

/** Every run of 8 characters of `spelling`, lower-cased. */
function pieces(spelling: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= spelling.length; i++) found.push(spelling.slice(i, i + 8).toLowerCase());
  return found;
}

function expectNoPiece(text: string, spellings: string[]): void {
  const folded = text.toLowerCase();
  for (const spelling of spellings) {
    for (const piece of pieces(spelling)) {
      expect({ piece, found: folded.includes(piece) }).toEqual({ piece, found: false });
    }
  }
}

describe('scrubSecrets', () => {
  it('removes credentials from connection URLs', () => {
    expect(scrubSecrets('connect postgres://svc:s3cret@db:5432/state failed')).toBe(
      'connect postgres://***@db:5432/state failed',
    );
    expect(scrubSecrets('https://token@example.com/x')).toBe('https://***@example.com/x');
  });

  it('removes bearer tokens, Basic credentials and credential query parameters', () => {
    expect(scrubSecrets('header was "Bearer abc.def-123", rejected')).toBe(
      'header was "Bearer ***", rejected',
    );
    expect(scrubSecrets('got Basic dXNlcjpzZWNyZXQ=')).toBe('got Basic ***');
    expect(scrubSecrets('GET /hook?sig=abc123&x=1 and ?api_key=zzz')).toBe(
      'GET /hook?sig=***&x=1 and ?api_key=***',
    );
  });

  it('leaves text without secrets alone', () => {
    expect(scrubSecrets('ECONNREFUSED 127.0.0.1:5432')).toBe('ECONNREFUSED 127.0.0.1:5432');
    expect(scrubSecrets('basic usage of the bearer')).toBe('basic usage of the bearer');
  });
});

describe('SecretScrubber', () => {
  const KEY = 'sk-Live/9f3K+q81"Zp\\X=mW7c2R';
  const scrubber = new SecretScrubber([KEY]);
  const spellings = [
    KEY,
    JSON.stringify(KEY).slice(1, -1),
    encodeURIComponent(KEY),
    encodeURIComponent(encodeURIComponent(KEY)),
    KEY.toUpperCase(),
    Buffer.from(KEY).toString('hex'),
  ];

  it.each(spellings)('removes the key spelled %s, and every piece of 8 characters of it', (s) => {
    const text = `before ${s} after; cut ${s.slice(0, 11)}… and tail …${s.slice(-9)}`;
    const scrubbed = scrubber.scrub(text);
    expect(scrubbed.startsWith('before ***')).toBe(true);
    expectNoPiece(scrubbed, [s]);
  });

  it('removes the key inside a Basic credential, whatever user name comes before it', () => {
    for (const user of ['u', 'us', 'use', 'admin', '']) {
      const basic = Buffer.from(`${user}:${KEY}`).toString('base64');
      const scrubbed = scrubber.scrub(`Authorization: Basic ${basic} and ${basic}`);
      // Only the few characters that mix the user name with the key may stay.
      expectNoPiece(scrubbed, [basic.slice(8, -4)]);
    }
  });

  it('leaves other text alone, and matches short secrets whole', () => {
    expect(scrubber.scrub('nothing to see at 127.0.0.1:8080')).toBe(
      'nothing to see at 127.0.0.1:8080',
    );
    const short = new SecretScrubber(['hunter2', 'ab']);
    expect(short.scrub('pw HUNTER2 and ab')).toBe('pw *** and ab');
    expect(short.empty).toBe(false);
    expect(new SecretScrubber([undefined, '']).empty).toBe(true);
  });

  it('scrubs a JSON log line value by value, so the line stays JSON', () => {
    const line = `${JSON.stringify({ msg: `upstream said ${KEY}`, err: { message: KEY.toUpperCase() } })}\n`;
    const scrubbed = scrubJsonLine(line, scrubber);
    expect(scrubbed.endsWith('\n')).toBe(true);
    const parsed = JSON.parse(scrubbed) as { msg: string; err: { message: string } };
    expect(parsed).toEqual({ msg: 'upstream said ***', err: { message: '***' } });
    const clean = '{"msg":"request completed","res":{"status":200}}\n';
    expect(scrubJsonLine(clean, scrubber)).toBe(clean);
  });
});

describe('configSecrets', () => {
  it('lists keys, signing secret, URL passwords and the paths of secret webhooks', () => {
    const config = loadConfig({
      SVC_API_KEY: 'root-key-123456',
      SVC_PROVIDER_API_KEY: 'sk-provider-key',
      SVC_MESSAGING_SECRET: 'signing-secret',
      SVC_PROVIDER_URL: 'http://svc:model%2Fpass@models.internal/v1',
      SVC_STATE_BACKEND: 'postgres',
      SVC_STATE_DSN: 'postgres://svc:db-password@db/state',
      SVC_CHATA_WEBHOOK: 'https://hooks.slack.com/services/T0/B0/token',
      SVC_CHATB_WEBHOOK: 'https://x.webhook.office.com/webhookb2/abc?sig=def',
    });
    expect(configSecrets(config)).toEqual([
      'root-key-123456',
      'sk-provider-key',
      'signing-secret',
      'model%2Fpass',
      'model/pass',
      'db-password',
      'db-password',
      '/services/T0/B0/token',
      '/webhookb2/abc?sig=def',
    ]);
  });

  it("adds the board's DSN password when the board has a database of its own", () => {
    const state = { SVC_STATE_BACKEND: 'postgres', SVC_STATE_DSN: 'postgres://svc:db-pw@db/state' };
    // By default the board uses the state DSN: nothing more to hide.
    expect(configSecrets(loadConfig(state))).toEqual(['db-pw', 'db-pw']);
    const own = loadConfig({ ...state, SVC_BOARD_DB: 'postgres://kanban:board-pw@db2/board' });
    expect(configSecrets(own)).toEqual(['db-pw', 'db-pw', 'board-pw', 'board-pw']);
    expect(configSecrets(loadConfig({ SVC_BOARD_DB: '/var/lib/svc/board.sqlite' }))).toEqual([]);
  });

  it('lists the OTLP exporters’ header values and endpoint passwords, traces and metrics', () => {
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel:collector-pw@otel.example.com',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20otlp-token-1',
      OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x-api-key=metrics-key-2',
      OTEL_METRICS_EXPORTER: 'otlp',
    });
    expect(new Set(configSecrets(config))).toEqual(
      new Set(['Bearer otlp-token-1', 'metrics-key-2', 'collector-pw']),
    );
  });

  it('takes a URL with only a user name as a token; host and scheme are never secret', () => {
    expect(urlSecrets('https://ghp_token123@example.com/x')).toEqual(['ghp_token123']);
    expect(urlSecrets('https://example.com/x')).toEqual([]);
    expect(urlSecrets(undefined)).toEqual([]);
  });
});
