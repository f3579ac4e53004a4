import type { RunRecord } from '../runs/record/run-record.js';

/** Posted when the model answered with nothing (chat webhooks refuse an empty text). */
export const EMPTY_REPLY = '(no answer)';

/** What a failed run answers the chat: a short apology that names the run. */
export const apology = (runId: string) => `Sorry, I could not answer that. (reference: ${runId})`;

/** The reply a run that ended answers its chat message with. */
export function replyText(run: Pick<RunRecord, 'run_id' | 'status' | 'text'>): string {
  if (run.status === 'failed') return apology(run.run_id);
  return run.text.trim() === '' ? EMPTY_REPLY : run.text;
}
