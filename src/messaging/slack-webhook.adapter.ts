import { ChannelAdapter } from './channel-adapter.js';
import { slackSafeText, truncateText } from './safe-text.js';

/** Slack shows up to 4,000 characters of `text` before it folds a message; stay below. */
export const SLACK_MAX_TEXT = 3_900;

/** `chata`: a Slack incoming webhook, `{"text": …}`. */
export class SlackWebhookAdapter extends ChannelAdapter {
  readonly channel = 'chata';

  render(text: string): { text: string } {
    // Truncate before escaping so an entity like `&amp;` is never cut in half.
    return { text: slackSafeText(truncateText(text, SLACK_MAX_TEXT)) };
  }
}
