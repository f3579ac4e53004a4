#!/usr/bin/env node
import { deferUnusedModules } from './cli/deferred-modules.js';
import { startingHeap } from './cli/heap-settings.js';

// The heap settings first (cli/heap-settings.ts) and the stand-ins of modules a start does not
// need (cli/deferred-modules.ts), then everything else, imported only now so that it loads
// under them.
startingHeap();
deferUnusedModules();
const { runSvc } = await import('./cli/svc.js');
await runSvc();
