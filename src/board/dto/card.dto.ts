import {
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { MAX_TENANT_ID } from '../../state/state-key.limits.js';
import {
  BOARD_COLUMNS,
  MAX_ASSIGNEE,
  MAX_CARDS_PER_TENANT,
  MAX_DESCRIPTION,
  MAX_TITLE,
} from '../board.limits.js';

const COLUMN_MESSAGE = `column must be one of ${BOARD_COLUMNS.join(', ')}`;
/** Present means validated: `null` is not a title (only `assignee` may be cleared with null). */
const IfPresent = () => ValidateIf((_: unknown, value: unknown) => value !== undefined);

class TenantBodyDto {
  @IsString() @IsNotEmpty() @MaxLength(MAX_TENANT_ID) tenant_id!: string;
}

/** `POST /v1/board/cards`. */
export class CreateCardDto extends TenantBodyDto {
  @IsString()
  @Matches(/\S/, { message: 'title must not be blank' })
  @MaxLength(MAX_TITLE)
  title!: string;

  @IfPresent() @IsString() @MaxLength(MAX_DESCRIPTION) description?: string;

  /** Omitted or null: unassigned. */
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
