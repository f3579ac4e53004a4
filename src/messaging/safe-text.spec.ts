import { describe, expect, it } from '@jest/globals';
import { slackSafeText, teamsSafeText, truncateText } from './safe-text.js';

describe('slackSafeText', () => {
  it('escapes Slack’s control characters, so special mentions become plain text', () => {
    expect(slackSafeText('<!channel> <!here> <!everyone> <!subteam^S1> <@U1> a & b')).toBe(
      '&lt;!channel&gt; &lt;!here&gt; &lt;!everyone&gt; &lt;!subteam^S1&gt; &lt;@U1&gt; a &amp; b',
    );
  });

  it('breaks bare @channel, @here and @everyone with a zero-width space', () => {
    const safe = slackSafeText('hey @channel, @Here and @everyone; mail me@example.com');
    expect(safe).toBe('hey @\u200Bchannel, @\u200BHere and @\u200Beveryone; mail me@example.com');
    expect(safe).not.toMatch(/@(channel|here|everyone)\b/i);
  });
});

describe('teamsSafeText', () => {
  it('breaks <at> tags and mass-mention words', () => {
    expect(teamsSafeText('<at>General</at> @everyone')).toBe(
      '<\u200Bat>General</\u200Bat> @\u200Beveryone',
    );
  });
});

describe('truncateText', () => {
  it('keeps short text and cuts long text with an ellipsis', () => {
    expect(truncateText('hello', 5)).toBe('hello');
    expect(truncateText('hello world', 6)).toBe('hello…');
  });

  it('never cuts a surrogate pair in half', () => {
    const cut = truncateText('ab😀cd', 4);
    expect(cut).toBe('ab…');
    expect(cut.length).toBeLessThanOrEqual(4);
  });
});
