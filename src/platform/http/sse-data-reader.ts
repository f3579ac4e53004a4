/**
 * Splits a text/event-stream body into the payloads of its `data:` fields (one per event,
 * multi-line data joined with newlines), as chunks arrive. Comments and other fields are
 * skipped; `[DONE]` (OpenAI's end marker) is passed on like any payload.
 */
export class SseDataReader {
  private buffer = '';
  private data: string[] = [];

  /** Feeds a decoded chunk; answers the payloads of the events it completed. */
  push(text: string): string[] {
    this.buffer += text;
    const done: string[] = [];
    let end: number;
    while ((end = this.buffer.search(/\r\n|\n|\r/)) >= 0) {
      const line = this.buffer.slice(0, end);
      const newline = this.buffer.startsWith('\r\n', end) ? 2 : 1;
      this.buffer = this.buffer.slice(end + newline);
      if (line === '') {
        if (this.data.length > 0) done.push(this.data.join('\n'));
        this.data = [];
      } else if (line.startsWith('data:')) {
        this.data.push(line.slice(5).replace(/^ /, ''));
      }
    }
    return done;
  }

  /** The stream ended: an event not closed by a blank line still counts. */
  end(): string[] {
    const rest = this.push('\n\n');
    this.buffer = '';
    return rest;
  }
}
