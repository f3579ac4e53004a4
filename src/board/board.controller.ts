import { Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { Principal } from '../platform/auth/principal.js';
import { TenantQueryDto } from '../platform/http/dto/tenant-query.dto.js';
import { ValidBody, ValidQuery } from '../platform/http/validated-params.js';
import { BoardService } from './board.service.js';
import { CreateCardDto, MoveCardDto, UpdateCardDto } from './dto/card.dto.js';

/** The tenant's Kanban board (`/v1/board`): read with `board:read`, change with `board:write`. */
@Controller('v1/board')
export class BoardController {
  constructor(private readonly board: BoardService) {}

  @Get()
  @RequirePermissions('board:read')
  list(@ValidQuery() { tenant_id }: TenantQueryDto) {
    return this.board.board(tenant_id);
  }

  @Get('cards/:id')
  @RequirePermissions('board:read')
  get(@Param('id') id: string, @ValidQuery() { tenant_id }: TenantQueryDto) {
    return this.board.card(tenant_id, id);
  }

  @Post('cards')
  @RequirePermissions('board:write')
  create(@ValidBody() body: CreateCardDto, @CurrentPrincipal() principal: Principal) {
    const { tenant_id, ...input } = body;
    return this.board.create(tenant_id, input, principal.keyId);
  }

  @Patch('cards/:id')
  @RequirePermissions('board:write')
  update(
    @Param('id') id: string,
    @ValidBody() { tenant_id, title, description, assignee }: UpdateCardDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    return this.board.update(tenant_id, id, { title, description, assignee }, principal.keyId);
  }

  @Post('cards/:id/move')
  @HttpCode(200)
  @RequirePermissions('board:write')
  move(
    @Param('id') id: string,
    @ValidBody() { tenant_id, column, position }: MoveCardDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    return this.board.move(tenant_id, id, { column, position }, principal.keyId);
  }

  @Delete('cards/:id')
  @RequirePermissions('board:write')
  remove(
    @Param('id') id: string,
    @ValidQuery() { tenant_id }: TenantQueryDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    return this.board.remove(tenant_id, id, principal.keyId);
  }
}
