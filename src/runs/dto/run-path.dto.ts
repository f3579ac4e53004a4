import { Identifier } from '../../platform/http/dto/identifier.js';
import { MAX_RUN_ID } from '../../platform/state/state-key.limits.js';

/** `/v1/runs/{run_id}…`: any run id the state backend can hold (no control characters). */
export class RunPathDto {
  @Identifier(MAX_RUN_ID) run_id!: string;
}
