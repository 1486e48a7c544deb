// The entry of a search worker thread (src/node/view-search.ts): a worker does not inherit the tsx loader
// that scripts/rlvr.mjs registers, so it registers its own before loading the TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./search-worker.ts');
