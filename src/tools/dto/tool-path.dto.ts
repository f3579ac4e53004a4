import { Matches } from 'class-validator';
import {
  NAME_MESSAGE,
  NAME_PATTERN,
  TOOL_NAME_MESSAGE,
  TOOL_NAME_PATTERN,
} from '../tool.limits.js';

/** `/v1/toolsets/{toolset}/tools/{name}`: names a tenant may register under. */
export class ToolPathDto {
  @Matches(NAME_PATTERN, { message: `toolset ${NAME_MESSAGE}` }) toolset!: string;
  @Matches(TOOL_NAME_PATTERN, { message: `name ${TOOL_NAME_MESSAGE}` }) name!: string;
}
