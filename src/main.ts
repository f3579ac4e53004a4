#!/usr/bin/env node
import { startingHeap } from './cli/heap-settings.js';

// The heap settings first, then everything else: imported only now, so it loads under them.
startingHeap();
const { runSvc } = await import('./cli/svc.js');
await runSvc();
