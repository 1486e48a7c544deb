#!/usr/bin/env node
// The `rlvr` command: loads the TypeScript CLI through tsx so there is no separate build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import(new URL('../src/cli/main.ts', import.meta.url).href);
process.exitCode = await main(process.argv.slice(2));
