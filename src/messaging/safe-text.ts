/** Zero-width space: breaks a mention keyword without changing what a reader sees. */
const ZWSP = '\u200B';
const PLAIN_MASS_MENTION = /@(channel|here|everyone)\b/gi;

/**
 * At most `max` characters; a longer text is cut (never inside a surrogate pair) and marked with
 * an ellipsis.
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * Model text made safe for a Slack message: `&`, `<` and `>` are escaped as Slack asks, which
 * turns `<!channel>`, `<!here>`, `<!everyone>`, `<!subteam^…>` and `<@U…>` into plain text,
 * and bare `@channel`, `@here` and `@everyone` are broken with a zero-width space in case the
 * workspace links names.
 */
export function slackSafeText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(PLAIN_MASS_MENTION, `@${ZWSP}$1`);
}

/**
 * Model text made safe for a Teams Adaptive Card TextBlock: the card carries no mention
 * entities, and `<at>` tags and bare mass-mention words are broken anyway so that no client
 * renders them as mentions.
 */
export function teamsSafeText(text: string): string {
  return text.replace(/<(\/?)at\b/gi, `<$1${ZWSP}at`).replace(PLAIN_MASS_MENTION, `@${ZWSP}$1`);
}
