import { ChannelAdapter } from './channel-adapter.js';
import { teamsSafeText, truncateText } from './safe-text.js';

/** Teams refuses messages over about 28 KB; a TextBlock of this many characters stays well below. */
export const TEAMS_MAX_TEXT = 12_000;

export interface TeamsMessage {
  type: 'message';
  attachments: Array<{
    contentType: 'application/vnd.microsoft.card.adaptive';
    contentUrl: null;
    content: {
      $schema: string;
      type: 'AdaptiveCard';
      version: string;
      body: Array<{ type: 'TextBlock'; text: string; wrap: true }>;
    };
  }>;
}

/**
 * `chatb`: a Microsoft Teams incoming webhook (or a Workflows "post to a channel when a webhook
 * request is received" flow): a message whose one attachment is an Adaptive Card holding the
 * reply as a plain TextBlock, without mention entities.
 */
export class TeamsWebhookAdapter extends ChannelAdapter {
  readonly channel = 'chatb';

  render(text: string): TeamsMessage {
    return {
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [
              {
                type: 'TextBlock',
                text: teamsSafeText(truncateText(text, TEAMS_MAX_TEXT)),
                wrap: true,
              },
            ],
          },
        },
      ],
    };
  }
}
