import { describe, expect, it } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import type { ServingSignal } from '../../platform/http/serving-signal.js';
import type { TenantEgress } from '../../platform/http/tenant-egress.js';
import type { DeploymentMark } from '../../platform/state/deployment-mark.js';
import type { LeaseKeeper } from '../../platform/state/lease-keeper.service.js';
import type { EntryWrite } from '../../platform/state/state-store.js';
import type { RunMarks, RunRecord, RunStatus } from '../record/run-record.js';
import type { RunRecordStore } from '../record/run-record.store.js';
import type { RunWebhookStore } from './run-webhook.store.js';
import { RunWebhooks } from './run-webhooks.service.js';

/** RunWebhooks over a store that records which runs were marked due (not serving: no poll). */
function setUp() {
  const due: string[] = [];
  const store = {
    markDue: (_tenantId: string, runId: string, onlyIf?: EntryWrite) => {
      // Marked in the settled record's transaction: only if that write holds.
      expect(onlyIf).toBe(SETTLED_WRITE);
      due.push(runId);
      return Promise.resolve(false);
    },
    configure: () => Promise.resolve(true),
  } as unknown as RunWebhookStore;
  const settings: Record<string, unknown> = {
    runEvents: { webhookSecret: 'secret' },
    messaging: { outboxPollMs: 1_000, outboxMaxAttempts: 3, outboxRetryBaseMs: 100 },
  };
  const config = { get: (key: string) => settings[key] } as ConfigService<GatewayConfig, true>;
  const webhooks = new RunWebhooks(
    store,
    {} as RunRecordStore,
    {} as LeaseKeeper,
    {} as TenantEgress,
    {} as ServingSignal,
    {} as DeploymentMark,
    config,
  );
  return { webhooks, due };
}

const run = (runId: string, status: RunStatus = 'completed') =>
  ({ run_id: runId, tenant_id: 'acme', status }) as RunRecord;

/** The settled record's write, as RunLifecycle.settle hands it to `settling`. */
const SETTLED_WRITE: EntryWrite = {
  key: { tenantId: 'acme', sessionId: 'run:r', key: 'record' },
  version: 2,
  json: '{}',
};

const settle = (webhooks: RunWebhooks, record: RunRecord, marks: RunMarks) => {
  webhooks.settling(record, marks, { write: SETTLED_WRITE, outcome: Promise.resolve() });
  return new Promise((resolve) => setImmediate(resolve));
};

describe('RunWebhooks.settling', () => {
  it('looks up the webhook only of a run that may have one', async () => {
    const { webhooks, due } = setUp();
    await settle(webhooks, run('plain'), {});
    await settle(webhooks, run('hooked'), { webhook: true });
    await settle(webhooks, run('task'), { origin: 'a2a' });
    await settle(webhooks, run('paused-task', 'paused'), { origin: 'a2a' });
    expect(due).toEqual(['hooked', 'task']);
  });

  it('remembers a run whose webhook was set here while it ran, until it ends', async () => {
    const { webhooks, due } = setUp();
    await webhooks.configure('acme', 'configured', { url: 'http://x', format: 'a2a', token: null });
    await settle(webhooks, run('configured', 'paused'), {});
    await settle(webhooks, run('configured'), {});
    await settle(webhooks, run('configured'), {});
    expect(due).toEqual(['configured']);
  });
});
