/**
 * The preload: the renderer's only door to the main process. It exposes exactly one object,
 * `window.skilldesk = { invoke, subscribe }`, speaking the typed contract; raw ipcRenderer never
 * reaches the page. Bundled to CommonJS (sandboxed preloads cannot load ES modules).
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';
import type { EventName, SkillDeskApi } from './contract/channels.js';
import { IPC_CHANNELS } from './contract/ipc.js';

const listeners = new Map<string, Set<(payload: unknown) => void>>();

ipcRenderer.on(IPC_CHANNELS.event, (_e: IpcRendererEvent, event: string, payload: unknown) => {
  for (const cb of [...(listeners.get(event) ?? [])]) cb(payload);
});

const api: SkillDeskApi = {
  invoke: (channel, req) => ipcRenderer.invoke(IPC_CHANNELS.invoke, channel, req),
  subscribe(event: EventName, cb) {
    let set = listeners.get(event);
    if (!set) {
      set = new Set();
      listeners.set(event, set);
      ipcRenderer.send(IPC_CHANNELS.subscribe, event);
    }
    const fn = cb as (payload: unknown) => void;
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) {
        listeners.delete(event);
        ipcRenderer.send(IPC_CHANNELS.unsubscribe, event);
      }
    };
  },
};

contextBridge.exposeInMainWorld('skilldesk', api);
