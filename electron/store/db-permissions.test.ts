import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/index.js';
import { openDatabase, restrictToOwner } from './db.js';
import { openStore } from './stores.js';

const mode = (file: string) => statSync(file).mode & 0o777;

describe.skipIf(process.platform === 'win32')('agents.db file modes', () => {
  it('creates the database and its -wal and -shm readable by the user only', () => {
    const dir = tempDir();
    const store = openStore('account', dir)!;
    store.db.prepare("INSERT INTO skills (id, name, description) VALUES ('s', 'S', 'd')").run();
    for (const f of ['agents.db', 'agents.db-wal', 'agents.db-shm']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
      expect(mode(join(dir, f)), f).toBe(0o600);
    }
    store.close();
  });

  it('tightens an existing store left readable by others when it is opened', () => {
    const dir = tempDir();
    const file = join(dir, 'agents.db');
    openDatabase(file).close();
    chmodSync(file, 0o644);
    writeFileSync(`${file}-wal`, '');
    chmodSync(`${file}-wal`, 0o666);
    const db = openDatabase(file);
    expect(mode(file)).toBe(0o600);
    expect(mode(`${file}-wal`)).toBe(0o600);
    expect(mode(`${file}-shm`)).toBe(0o600);
    db.close();
  });

  it('leaves the mode alone when opening read-only, and never fails when it cannot chmod', () => {
    const file = join(tempDir(), 'agents.db');
    openDatabase(file).close();
    chmodSync(file, 0o640);
    openDatabase(file, { readonly: true }).close();
    expect(mode(file)).toBe(0o640);
    expect(() => restrictToOwner(join(tempDir(), 'missing.db'))).not.toThrow();
  });
});
