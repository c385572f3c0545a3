import { textKind } from '../text.js';

/** File names the scanner reads as code. */
const CODE_FILE = /\.(?:py|js|mjs|cjs|ts|sh|bash|zsh|ps1|rb|pl|php|bat|cmd)$/i;
/** File names the permissions list as scripts. */
const SCRIPT_FILE = /\.(?:py|sh|js|mjs|ts|rb|pl|ps1)$/i;
const REQUIREMENTS = /(?:^|\/)requirements[^/]*\.txt$/i;

/**
 * `resource`: a bundled file read on demand; a file of its own in an Agent Skills folder. A file
 * under `scripts/` or with a script's extension is a script to review, a requirements file the
 * packages it declares.
 */
export const resourceKind = textKind(
  'resource',
  {
    path: (a) => (typeof a.metadata?.path === 'string' ? a.metadata.path : null),
    file: (a, base) => `references/${base}${/\.[A-Za-z0-9]{1,8}$/.exec(a.name)?.[0]?.toLowerCase() ?? ''}`,
  },
  (a) => {
    const path = typeof a.metadata?.path === 'string' ? a.metadata.path : a.name;
    const inScripts = /^scripts\//.test(path);
    const packages: string[] = [];
    if (REQUIREMENTS.test(path)) {
      for (const line of a.content.split('\n')) {
        const name = line.replace(/#.*/, '').trim();
        if (name && !name.startsWith('-')) packages.push(name);
      }
    }
    return {
      ...(inScripts || SCRIPT_FILE.test(path) ? { script: path } : {}),
      ...(packages.length > 0 ? { packages } : {}),
      code: inScripts || CODE_FILE.test(path),
    };
  },
);
