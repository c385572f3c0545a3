/** Offer text as a file download (no network: a blob URL on this origin). */
export function downloadText(fileName: string, text: string, type = 'application/json'): void {
  downloadBlob(fileName, new Blob([text], { type }));
}

/**
 * Offer bytes as a file download under `fileName`, with the blob's media type (a blob URL on this
 * origin: nothing leaves the app). In the desktop app Electron asks where to save it, with the
 * operating system's own dialog.
 */
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

type SaveFilePicker = (o: { suggestedName: string }) => Promise<{
  createWritable(): Promise<{ write(b: Blob): Promise<void>; close(): Promise<void> }>;
}>;

/**
 * "Save to…": where the engine has a save dialog (`showSaveFilePicker`: Chromium, so the desktop
 * app and web mode in Chrome), the user picks the place and the bytes are written there; where it
 * has none (Firefox, Safari) or refuses it (a permission policy), the file downloads instead, which
 * the browser or Electron saves as it saves downloads. `bytes` is asked for only once a place is
 * chosen. Resolves `'cancelled'` when the user closes the dialog.
 */
export async function saveBlobTo(
  fileName: string,
  bytes: () => Promise<Blob>,
): Promise<'saved' | 'downloaded' | 'cancelled'> {
  const picker = (window as unknown as { showSaveFilePicker?: SaveFilePicker }).showSaveFilePicker;
  if (picker) {
    let handle: Awaited<ReturnType<SaveFilePicker>> | null = null;
    try {
      handle = await picker.call(window, { suggestedName: fileName });
    } catch (e) {
      if ((e as Error)?.name === 'AbortError') return 'cancelled';
      // Not allowed here (a denied permission, no user gesture left): the download still works.
    }
    if (handle) {
      const blob = await bytes();
      const w = await handle.createWritable();
      await w.write(blob);
      await w.close();
      return 'saved';
    }
  }
  downloadBlob(fileName, await bytes());
  return 'downloaded';
}
