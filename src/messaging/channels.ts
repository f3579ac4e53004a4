/** The two team-chat channels (spec section 1): `chata` speaks Slack, `chatb` Microsoft Teams. */
export const CHANNELS = ['chata', 'chatb'] as const;
export type Channel = (typeof CHANNELS)[number];

/** One message someone wrote in a chat, as the webhook accepts it (CONTRACT section 7). */
export interface InboundEvent {
  tenantId: string;
  channel: Channel;
  conversationId: string;
  user: string;
  text: string;
  eventId: string;
}
