#!/usr/bin/env node
// The skilldesk CLI. A clone works after `npm install` with no build step: it runs a bundle of the
// TypeScript sources that is rebuilt whenever a source is newer (scripts/cli-bundle.mjs), or the
// sources themselves through tsx when the bundle cannot be built.
import { loadCli } from '../scripts/cli-bundle.mjs';

const main = await loadCli();
process.exitCode = await main(process.argv.slice(2));
