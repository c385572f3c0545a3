import { useCallback, useEffect } from 'react';
import { create } from 'zustand';
import type { Client } from '../../bridge/client.js';

/**
 * The hosts each chat's Python code may reach, shared by the Files bar's Network field and the
 * "allow this host?" question under a refused run, so a host allowed in one shows in the other.
 * The main process keeps the grants; this is a cache of its answers.
 */
interface NetworkState {
  hosts: Record<string, string[] | undefined>;
  put(sessionId: string, hosts: string[]): void;
}

const useNetworkState = create<NetworkState>((set) => ({
  hosts: {},
  put: (sessionId, hosts) => set((s) => ({ hosts: { ...s.hosts, [sessionId]: hosts } })),
}));

/**
 * The chat's granted hosts (null until loaded or when they cannot be read) and `save`, which
 * replaces them through `python/set-network` and throws the main process's reason on refusal.
 */
export function usePythonNetwork(client: Client, sessionId: string) {
  const hosts = useNetworkState((s) => s.hosts[sessionId]) ?? null;
  const put = useNetworkState((s) => s.put);
  useEffect(() => {
    let live = true;
    client
      .invoke('python/get-network', { session_id: sessionId })
      .then((r) => live && put(sessionId, r.hosts))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [client, sessionId, put]);
  const save = useCallback(
    async (next: string[]) => {
      const r = await client.invoke('python/set-network', { session_id: sessionId, hosts: next });
      put(sessionId, r.hosts);
      return r.hosts;
    },
    [client, sessionId, put],
  );
  return { hosts, save };
}
