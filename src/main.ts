#!/usr/bin/env node
import { startingHeap } from './cli/heap-settings.js';

// The heap settings first (cli/heap-settings.ts), then everything else, imported only now so
// that it loads under them.
startingHeap();
const { runSvc } = await import('./cli/svc.js');
await runSvc();
