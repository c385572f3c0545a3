import { join } from 'node:path';

/**
 * The wheel cache Full Python's tests share (`SKILLDESK_WHEEL_CACHE`, else one under
 * node_modules/.cache): content-addressed and hash-checked, so a machine or a CI run downloads
 * each pinned wheel once.
 */
export const TEST_WHEEL_CACHE =
  process.env.SKILLDESK_WHEEL_CACHE || join(process.cwd(), 'node_modules', '.cache', 'skilldesk-wheels');
