import type { ChannelAdapter } from './channel-adapter.js';
import type { Channel } from './channels.js';

/** Every channel's adapter, built from configuration in MessagingModule's one factory. */
export class ChannelRegistry {
  private readonly byChannel: ReadonlyMap<Channel, ChannelAdapter>;

  constructor(adapters: ChannelAdapter[]) {
    this.byChannel = new Map(adapters.map((adapter) => [adapter.channel, adapter]));
  }

  get(channel: Channel): ChannelAdapter {
    const adapter = this.byChannel.get(channel);
    if (!adapter) throw new Error(`no adapter for channel ${channel}`);
    return adapter;
  }

  /** Which channels have a webhook address. */
  configured(): Record<Channel, boolean> {
    return { chata: this.get('chata').configured, chatb: this.get('chatb').configured };
  }
}
