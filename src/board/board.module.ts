import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ReadinessChecks } from '../platform/health/readiness-checks.js';
import { ReadinessModule } from '../platform/health/readiness.module.js';
import { ToolsModule } from '../tools/tools.module.js';
import { BoardCardStore } from './board-card.store.js';
import { BoardDatabase } from './board-database.js';
import { BoardController } from './board.controller.js';
import { BoardService } from './board.service.js';
import { BoardToolset } from './board.toolset.js';
import { PostgresBoardDatabase } from './postgres-board.database.js';
import { SqliteBoardDatabase } from './sqlite-board.database.js';

/**
 * The Kanban board: its own database (SVC_BOARD_DB: a sqlite file, or PostgreSQL shared by the
 * replicas; its own migrations), `/v1/board`, and the built-in toolset `board`, which it
 * registers with the tools module (board → tools; tools knows nothing of the board).
 */
@Module({
  imports: [ToolsModule, ReadinessModule],
  controllers: [BoardController],
  providers: [
    {
      provide: BoardDatabase,
      useFactory: (config: ConfigService<GatewayConfig, true>, checks: ReadinessChecks) => {
        const board = config.get('board', { infer: true });
        return board.backend === 'postgres'
          ? new PostgresBoardDatabase(board, checks)
          : new SqliteBoardDatabase(board.sqlitePath);
      },
      inject: [ConfigService, ReadinessChecks],
    },
    BoardCardStore,
    BoardService,
    BoardToolset,
  ],
  exports: [BoardService],
})
export class BoardModule {}
