import { describe, expect, it } from '@jest/globals';
import { SLACK_MAX_TEXT, SlackWebhookAdapter } from './slack-webhook.adapter.js';
import { TEAMS_MAX_TEXT, TeamsWebhookAdapter } from './teams-webhook.adapter.js';

describe('SlackWebhookAdapter (chata)', () => {
  const slack = new SlackWebhookAdapter('https://hooks.slack.test/services/T/B/X');

  it('renders Slack incoming-webhook JSON with safe text', () => {
    expect(slack.channel).toBe('chata');
    expect(slack.configured).toBe(true);
    expect(slack.render('hi <!channel> @here')).toEqual({
      text: 'hi &lt;!channel&gt; @\u200Bhere',
    });
  });

  it('bounds the text', () => {
    const { text } = slack.render('x'.repeat(50_000));
    expect(text.length).toBe(SLACK_MAX_TEXT);
  });
});

describe('TeamsWebhookAdapter (chatb)', () => {
  const teams = new TeamsWebhookAdapter('https://teams.test/webhook');

  it('renders a Teams message with one Adaptive Card holding a TextBlock', () => {
    expect(teams.channel).toBe('chatb');
    expect(teams.render('hello <at>all</at>')).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [{ type: 'TextBlock', text: 'hello <\u200Bat>all</\u200Bat>', wrap: true }],
          },
        },
      ],
    });
    const body = teams.render('y'.repeat(50_000)).attachments[0].content.body[0];
    expect(body.text.length).toBe(TEAMS_MAX_TEXT);
    expect(JSON.stringify(teams.render('x'))).not.toContain('msteams');
  });
});

describe('an adapter without a webhook address', () => {
  it('is not configured and refuses to deliver, for good', async () => {
    const slack = new SlackWebhookAdapter(undefined);
    expect(slack.configured).toBe(false);
    await expect(slack.deliver('hi', 'acme/msg-1')).resolves.toEqual({
      ok: false,
      retryable: false,
      error: 'channel chata has no webhook configured',
    });
  });
});
