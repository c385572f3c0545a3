import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The OS probes: listeners on this machine that a confined sandbox process must not reach. Each
 * process the pool starts is told where they are and tries them; a hit means the OS confinement
 * failed, and the pool counts it.
 */

/** Listeners the sandbox process must not reach: a TCP port on loopback and a UNIX socket. */
export interface Probes {
  tcpPort: number;
  unixPath: string | null;
  hits: number;
  close(): void;
}

export async function openProbes(): Promise<Probes> {
  const servers: Server[] = [];
  const probes: Probes = {
    tcpPort: 0,
    unixPath: null,
    hits: 0,
    close: () => {
      for (const s of servers) s.close();
      if (probes.unixPath) rmSync(dirname(probes.unixPath), { recursive: true, force: true });
    },
  };
  const listen = (target: { port: number; host: string } | { path: string }) =>
    new Promise<Server | null>((resolve) => {
      const server = createServer((socket) => {
        probes.hits++;
        socket.destroy();
      });
      server.once('error', () => resolve(null));
      server.listen(target, () => {
        server.unref();
        servers.push(server);
        resolve(server);
      });
    });
  const tcp = await listen({ port: 0, host: '127.0.0.1' });
  probes.tcpPort = (tcp?.address() as { port: number } | null)?.port ?? 0;
  if (process.platform !== 'win32') {
    const dir = join(tmpdir(), `skilldesk-probe-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, 'p.sock');
      if (await listen({ path })) probes.unixPath = path;
    } catch {
      // no UNIX socket probe on this system
    }
  }
  return probes;
}
