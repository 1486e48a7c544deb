// The entry of a findings worker thread (src/node/view-findings.ts): a worker does not inherit the tsx loader
// that scripts/rlvr.mjs registers, so it registers its own before loading the TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./findings-worker.ts');
