import type { SlackWorkspace } from './slack-event.mapper.js';

/**
 * Which tenant a Slack event belongs to: decided by the signed body only, never by the query
 * string (which the signature does not cover), so a captured event cannot be replayed into
 * another tenant. With SVC_SLACK_TENANTS the workspace's team id (or, for an org-wide install,
 * its enterprise id) is looked up and anything unmapped belongs to nobody; without it, the app
 * serves one tenant, SVC_TENANT. Undefined: the event belongs to no tenant.
 */
export function slackTenant(
  workspace: SlackWorkspace,
  tenants: ReadonlyMap<string, string> | undefined,
  defaultTenant: string | undefined,
): string | undefined {
  if (tenants === undefined) return defaultTenant;
  const byTeam = workspace.team === undefined ? undefined : tenants.get(workspace.team);
  if (byTeam !== undefined) return byTeam;
  return workspace.enterprise === undefined ? undefined : tenants.get(workspace.enterprise);
}

/** Slack ids are short upper-case words; anything else is not repeated back. */
const SLACK_ID = /^[A-Z0-9]{1,32}$/;

/** What the refusal of an event without a tenant says. */
export function unmappedDetail(
  workspace: SlackWorkspace,
  tenants: ReadonlyMap<string, string> | undefined,
): string {
  if (tenants === undefined) {
    return 'Slack events need SVC_SLACK_TENANTS (or SVC_TENANT) to name their tenant';
  }
  const ids = [workspace.team, workspace.enterprise].filter(
    (id): id is string => id !== undefined && SLACK_ID.test(id),
  );
  const named = ids.length > 0 ? ` ${ids.join(' / ')}` : '';
  return `the Slack workspace${named} is not mapped to a tenant (SVC_SLACK_TENANTS)`;
}
