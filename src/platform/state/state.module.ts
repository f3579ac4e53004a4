import { Module } from '@nestjs/common';
import { DeploymentMark } from './deployment-mark.js';
import { LeaseKeeper } from './lease-keeper.service.js';
import { StateDatabase } from './state-database.service.js';
import { StateNotifications } from './state-notifications.js';
import { StateStore } from './state-store.js';
import { TypeormStateStore } from './typeorm-state.store.js';

/**
 * The shared state backend: the DataSource lifecycle (StateDatabase) and the StateStore port.
 * Both drivers share one implementation; the dialect is chosen from configuration.
 */
@Module({
  providers: [
    StateDatabase,
    { provide: StateStore, useClass: TypeormStateStore },
    LeaseKeeper,
    StateNotifications,
    DeploymentMark,
  ],
  exports: [StateDatabase, StateStore, LeaseKeeper, StateNotifications, DeploymentMark],
})
export class StateModule {}
