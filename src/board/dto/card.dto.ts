import { IsIn, IsInt, IsNotEmpty, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
// `assignee: null` unassigns: the one field where null is a value that @IsOptional must let by.
// eslint-disable-next-line no-restricted-imports
import { IsOptional } from 'class-validator';
import { TenantId } from '../../platform/http/dto/identifier.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';
import {
  BOARD_COLUMNS,
  MAX_ASSIGNEE,
  MAX_CARDS_PER_TENANT,
  MAX_DESCRIPTION,
  MAX_TITLE,
} from '../board.limits.js';

const COLUMN_MESSAGE = `column must be one of ${BOARD_COLUMNS.join(', ')}`;
class TenantBodyDto {
  @TenantId() tenant_id!: string;
}

/** `POST /v1/board/cards`. */
export class CreateCardDto extends TenantBodyDto {
  @IsString()
  @Matches(/\S/, { message: 'title must not be blank' })
  @MaxLength(MAX_TITLE)
  title!: string;

  @IfPresent() @IsString() @MaxLength(MAX_DESCRIPTION) description?: string;

  /** Omitted or null: unassigned (the one field where `null` means something). */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(MAX_ASSIGNEE) assignee?: string | null;

  /** Default `todo`. */
  @IfPresent() @IsIn(BOARD_COLUMNS, { message: COLUMN_MESSAGE }) column?: string;

  /** 0-based place in the column; omitted or past the end: last. */
  @IfPresent() @IsInt() @Min(0) @Max(MAX_CARDS_PER_TENANT) position?: number;
}

/** `PATCH /v1/board/cards/{id}`: only the fields given change; `assignee: null` unassigns. */
export class UpdateCardDto extends TenantBodyDto {
  @IfPresent()
  @IsString()
  @Matches(/\S/, { message: 'title must not be blank' })
  @MaxLength(MAX_TITLE)
  title?: string;

  @IfPresent() @IsString() @MaxLength(MAX_DESCRIPTION) description?: string;

  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(MAX_ASSIGNEE) assignee?: string | null;
}

/** `POST /v1/board/cards/{id}/move`. */
export class MoveCardDto extends TenantBodyDto {
  @IsIn(BOARD_COLUMNS, { message: COLUMN_MESSAGE }) column!: string;

  /** 0-based place in the target column; omitted or past the end: last. */
  @IfPresent() @IsInt() @Min(0) @Max(MAX_CARDS_PER_TENANT) position?: number;
}
