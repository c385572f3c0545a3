/**
 * The preload: the renderer's only door to the main process. It exposes exactly one object,
 * `window.skilldesk = { send, onMessage }`, a port for the RPC peer on one IPC channel; raw
 * ipcRenderer never reaches the page, and the main process checks every message's frame.
 * Bundled to CommonJS (sandboxed preloads cannot load ES modules).
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';
import { IPC_CHANNELS, type SkillDeskBridge } from './contract/ipc.js';

const bridge: SkillDeskBridge = {
  send: (message) => ipcRenderer.send(IPC_CHANNELS.message, message),
  onMessage(receive) {
    const listener = (_e: IpcRendererEvent, message: unknown) => receive(message);
    ipcRenderer.on(IPC_CHANNELS.message, listener);
    return () => {
      ipcRenderer.removeListener(IPC_CHANNELS.message, listener);
    };
  },
};

contextBridge.exposeInMainWorld('skilldesk', bridge);
