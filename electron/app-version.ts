// The app's version, apart from the composition root so the CLI can print `--version` and its
// help without loading the core.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The app version from the nearest `package.json` named skilldesk (works from sources and bundles). */
export function appVersion(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const rel of ['..', '../..']) {
    const file = join(here, rel, 'package.json');
    if (!existsSync(file)) continue;
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'skilldesk' && pkg.version) return pkg.version;
    } catch {
      // Not ours; keep looking.
    }
  }
  return '0.0.0';
}
