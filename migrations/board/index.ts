import { CreateBoardCards1795392000000 } from './1795392000000-create-board-cards.js';

/**
 * Every board migration in order (the board database's own set, separate from the state
 * migrations). Listed as classes so the same list works under jest and from dist/.
 */
export const boardMigrations = [CreateBoardCards1795392000000];
