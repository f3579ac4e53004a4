#!/usr/bin/env node
import { holdYoungGeneration, startingHeap } from './cli/heap-settings.js';

// The heap settings first (cli/heap-settings.ts), then everything else, imported only now so
// that it loads under them: the framework while the young generation may still grow, the rest
// once it is held.
startingHeap();
await import('@nestjs/common');
holdYoungGeneration();
const { runSvc } = await import('./cli/svc.js');
await runSvc();
