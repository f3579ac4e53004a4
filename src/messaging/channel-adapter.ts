import type { Channel } from './channels.js';
import { type DeliveryOutcome, postWebhook } from './webhook-poster.js';

/**
 * One outbound chat system (spec section 6): renders a reply in the form its incoming webhook
 * expects and posts it to the address configured for the channel. Text is made safe and bounded
 * by the adapter, so no reply can mention a whole channel.
 */
export abstract class ChannelAdapter {
  abstract readonly channel: Channel;

  constructor(private readonly url: string | undefined) {}

  /** True when the channel has a webhook address (SVC_CHATA_WEBHOOK / SVC_CHATB_WEBHOOK). */
  get configured(): boolean {
    return this.url !== undefined;
  }

  /** The webhook's JSON message for a reply. */
  abstract render(text: string): unknown;

  /**
   * Posts a reply; `idempotencyKey` is the same on every attempt of one delivery, `headers` mark
   * it as this deployment's (DeploymentMark).
   */
  deliver(
    text: string,
    idempotencyKey: string,
    headers: Record<string, string> = {},
  ): Promise<DeliveryOutcome> {
    if (this.url === undefined) {
      return Promise.resolve({
        ok: false,
        retryable: false,
        error: `channel ${this.channel} has no webhook configured`,
      });
    }
    return postWebhook(this.url, this.render(text), { idempotencyKey, headers });
  }
}
