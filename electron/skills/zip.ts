import yauzl from 'yauzl';
import yazl from 'yazl';
import { AppError } from '../contract/errors.js';
import { markExecutable } from './file-modes.js';
import { FILES_REMEDY, formatBytes, type ImportLimits, SIZE_REMEDY } from './limits.js';
import { safeRelativePath } from './safe-path.js';

/** Files of an archive or folder, by normalised relative path. */
export type FileMap = Map<string, Buffer>;

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/**
 * Read a zip into memory under the import limits: entry count, declared and actual sizes,
 * compression ratio (zip bombs), symlinks and paths that would escape the folder are all refused.
 */
export async function readZip(file: string, buf: Buffer, limits: ImportLimits): Promise<FileMap> {
  const zip = await new Promise<yauzl.ZipFile>((res, rej) =>
    yauzl.fromBuffer(
      buf,
      { lazyEntries: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: false },
      (err, z) => (err ? rej(invalid(file, `not a readable zip (${err.message})`)) : res(z!)),
    ),
  );
  if (zip.entryCount > limits.maxFiles) {
    zip.close();
    throw new AppError(
      'TOO_LARGE',
      `${file}: ${zip.entryCount} entries, more than the ${limits.maxFiles} allowed; ${FILES_REMEDY}`,
      { file },
    );
  }
  const files: FileMap = new Map();
  let total = 0;
  return new Promise<FileMap>((resolve, reject) => {
    const fail = (e: unknown) => {
      zip.close();
      reject(e);
    };
    zip.on('error', (e: Error) =>
      fail(
        /relative path|absolute path|invalid characters/i.test(e.message)
          ? new AppError('UNSAFE_PATH', `${file}: ${e.message}; entries must stay inside the skill folder`, {
              file,
            })
          : invalid(file, e.message),
      ),
    );
    zip.on('end', () => resolve(files));
    zip.on('entry', (entry: yauzl.Entry) => {
      try {
        const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
        if (mode === S_IFLNK) {
          throw new AppError(
            'UNSAFE_PATH',
            `${file}: ${entry.fileName} is a symbolic link; links are not imported`,
            { file },
          );
        }
        const isDir = entry.fileName.endsWith('/');
        const rel = safeRelativePath(entry.fileName, file);
        if (isDir) {
          zip.readEntry();
          return;
        }
        if (entry.isEncrypted()) throw invalid(file, `${rel} is encrypted`);
        total += entry.uncompressedSize;
        if (total > limits.maxBytes) {
          throw new AppError(
            'TOO_LARGE',
            `${file}: unpacks to more than ${formatBytes(limits.maxBytes)}; ${SIZE_REMEDY}`,
            {
              file,
            },
          );
        }
        const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
        if (entry.uncompressedSize > 1024 * 1024 && ratio > limits.maxRatio) {
          throw new AppError(
            'TOO_LARGE',
            `${file}: ${rel} expands ${Math.round(ratio)}x (a zip bomb?); refused`,
            { file },
          );
        }
        if (files.has(rel)) throw invalid(file, `${rel} appears twice`);
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return fail(invalid(file, `${rel}: ${err?.message ?? 'unreadable'}`));
          const chunks: Buffer[] = [];
          let got = 0;
          stream.on('data', (c: Buffer) => {
            got += c.length;
            // Never trust the header: stop inflating as soon as the real size passes the cap.
            if (got > entry.uncompressedSize || got > limits.maxBytes) {
              stream.destroy();
              fail(
                new AppError('TOO_LARGE', `${file}: ${rel} inflates past its declared size; refused`, {
                  file,
                }),
              );
              return;
            }
            chunks.push(c);
          });
          stream.on('error', (e: Error) => fail(invalid(file, `${rel}: ${e.message}`)));
          stream.on('end', () => {
            files.set(rel, Buffer.concat(chunks));
            // Unix modes ride in the upper half of the external attributes (zips made on Unix).
            if (((entry.externalFileAttributes >>> 16) & 0o111) !== 0) markExecutable(files, rel);
            zip.readEntry();
          });
        });
      } catch (e) {
        fail(e);
      }
    });
    zip.readEntry();
  });
}

function invalid(file: string, why: string): AppError {
  return new AppError('INVALID_INPUT', `${file}: ${why}`, { file });
}

/**
 * A zip of an Agent Skills folder under `top/`: deflated, each entry with its Unix mode (an
 * executable script stays executable) and one fixed time, so the same skill zips to the same bytes.
 */
export function writeZip(
  files: ReadonlyMap<string, Uint8Array>,
  top: string,
  executable: (path: string) => boolean,
): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const mtime = new Date(Date.UTC(1980, 0, 1, 12));
  for (const [path, bytes] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    zip.addBuffer(Buffer.from(bytes), `${top}/${path}`, {
      mtime,
      mode: executable(path) ? 0o100755 : 0o100644,
      compress: true,
    });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}
