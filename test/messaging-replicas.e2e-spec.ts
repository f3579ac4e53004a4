import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type BackendFixture, createBackend } from './support/backends.js';
import { ChatServer, SLACK_PATH, messageText, waitUntil } from './support/chat-server.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { MockModel, completion, lastUserText } from './support/mock-model.js';
import { postSigned, slackMessage } from './support/slack-events.js';

const SECRET = 'replica-signing-secret';

describe('messaging on two replicas sharing PostgreSQL', () => {
  const model = new MockModel();
  const chat = new ChatServer();
  let fixture: BackendFixture;
  let replicas: RunningGateway[];

  beforeAll(async () => {
    await model.start();
    await chat.start();
    fixture = await createBackend('postgres');
    const env = {
      ...fixture.env,
      SVC_PROVIDER_URL: `${model.url}/v1`,
      SVC_MESSAGING_SECRET: SECRET,
      SVC_CHATA_WEBHOOK: chat.slackUrl,
      SVC_TENANT: 'acme',
      SVC_OUTBOX_POLL_MS: '20',
      SVC_OUTBOX_RETRY_BASE_MS: '50',
    };
    replicas = [await startGateway(env), await startGateway(env)];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await fixture.cleanup();
    await chat.close();
    await model.close();
  });

  const repliesTo = (text: string) =>
    chat.received(SLACK_PATH, (body) => messageText(body) === `answer: ${text}`);

  it('runs an event once when it reaches both replicas 5 times each, at the same moment', async () => {
    // A slow model keeps the first run going while the copies arrive.
    model.reset((seen) => ({ delayMs: 100, body: completion(`answer: ${lastUserText(seen)}`) }));
    const event = slackMessage('one run only');
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postSigned(replicas[i % 2].url, SECRET, event)),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(responses.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    await waitUntil(() => repliesTo('one run only').length === 1, 'the reply is delivered');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(model.requests).toHaveLength(1);
    expect(repliesTo('one run only')).toHaveLength(1);
  });

  it('acknowledges an event at once while the model is still answering', async () => {
    model.reset((seen) => ({ delayMs: 2000, body: completion(`answer: ${lastUserText(seen)}`) }));
    const started = Date.now();
    const res = await postSigned(replicas[0].url, SECRET, slackMessage('slow thinking')).expect(
      200,
    );
    expect(res.body).toMatchObject({ duplicate: false, status: 'running' });
    // Generous: the point is that the answer does not wait for the 2 s model call.
    expect(Date.now() - started).toBeLessThan(1500);
    await waitUntil(() => repliesTo('slow thinking').length === 1, 'the reply is delivered');
  });

  it('delivers every message once while both replicas retry the outbox', async () => {
    model.reset((seen) => ({ body: completion(`answer: ${lastUserText(seen)}`) }));
    // Every message fails its first two attempts, so the retries come from both replicas' polls.
    chat.script(SLACK_PATH, (_n, body) => {
      const text = messageText(body) ?? '';
      const earlier = chat.calls.filter((c) => messageText(c.body) === text).length;
      return earlier < 2 ? { status: 503 } : {};
    });
    const texts = Array.from({ length: 8 }, (_, i) => `message ${i}`);
    await Promise.all(
      texts.map((text, i) =>
        postSigned(replicas[i % 2].url, SECRET, slackMessage(text)).expect(200),
      ),
    );
    await waitUntil(
      () => texts.every((text) => repliesTo(text).some((call) => call.status === 200)),
      'every message is delivered',
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const text of texts) {
      // Two refusals, one delivery, and never two attempts at once.
      expect({ text, statuses: repliesTo(text).map((c) => c.status) }).toEqual({
        text,
        statuses: [503, 503, 200],
      });
    }
    expect(model.requests).toHaveLength(texts.length);
  });
});
