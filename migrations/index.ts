import { CreateStateTables1795305600000 } from './1795305600000-create-state-tables.js';
import { CreateMessagingOutbox1795392000000 } from './1795392000000-create-messaging-outbox.js';
import { EncodeOutboxMarkerText1795478400000 } from './1795478400000-encode-outbox-marker-text.js';
import { CreateRunEvents1795564800000 } from './1795564800000-create-run-events.js';
import { CreateRunWebhooks1795600000000 } from './1795600000000-create-run-webhooks.js';
import { AddRunWebhookFormat1795700000000 } from './1795700000000-add-run-webhook-format.js';
import { CreateAuditEvents1795800000000 } from './1795800000000-create-audit-events.js';
import { CreateStudioTables1795800000001 } from './1795800000001-create-studio-tables.js';
import { CreateTokenUsage1795900000000 } from './1795900000000-create-token-usage.js';
import { CreateA2ATasks1796000000000 } from './1796000000000-create-a2a-tasks.js';

/**
 * Every state migration in order. Listed as classes (not a glob) so the same list works from the
 * TypeScript sources under jest and from dist/ at run time.
 */
export const stateMigrations = [
  CreateStateTables1795305600000,
  CreateMessagingOutbox1795392000000,
  EncodeOutboxMarkerText1795478400000,
  CreateRunEvents1795564800000,
  CreateRunWebhooks1795600000000,
  AddRunWebhookFormat1795700000000,
  CreateAuditEvents1795800000000,
  CreateStudioTables1795800000001,
  CreateTokenUsage1795900000000,
  CreateA2ATasks1796000000000,
];
