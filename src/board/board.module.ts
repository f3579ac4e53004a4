import { Module } from '@nestjs/common';
import { ToolsModule } from '../tools/tools.module.js';
import { BoardCardStore } from './board-card.store.js';
import { BoardDatabase } from './board-database.service.js';
import { BoardController } from './board.controller.js';
import { BoardService } from './board.service.js';
import { BoardToolset } from './board.toolset.js';

/**
 * The Kanban board: its own sqlite database (SVC_BOARD_DB, its own migrations), `/v1/board`,
 * and the built-in toolset `board`, which it registers with the tools module (board → tools;
 * tools knows nothing of the board).
 */
@Module({
  imports: [ToolsModule],
  controllers: [BoardController],
  providers: [BoardDatabase, BoardCardStore, BoardService, BoardToolset],
  exports: [BoardService],
})
export class BoardModule {}
