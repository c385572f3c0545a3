#!/usr/bin/env node
// The skilldesk CLI. Runs the TypeScript sources directly through tsx so a clone works after
// `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../electron/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
