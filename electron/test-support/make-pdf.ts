/**
 * Small, valid PDF files written byte by byte for tests (no PDF library is a dependency of the
 * app, and a fixture made by the test shows exactly what the reader is given): pages of text in
 * Helvetica, pages that are only an image (what a scanner makes), and the standard security
 * handler's password lock (RC4, revision 2) for an encrypted file.
 */
import { createHash } from 'node:crypto';

/** One page: lines of text (ASCII), and/or a full-page grey image standing for a scan. */
export interface PdfPageSpec {
  lines?: string[];
  image?: boolean;
}

/** Options of {@link makePdf}. */
export interface MakePdfOptions {
  /** Lock the file with this user password (nobody can open it without). */
  userPassword?: string;
}

const escapeText = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);

// The standard security handler's padding string (PDF 32000-1, 7.6.3.3).
const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  const s = Uint8Array.from({ length: 256 }, (_, i) => i);
  const swap = (a: number, b: number) => {
    const t = s[a]!;
    s[a] = s[b]!;
    s[b] = t;
  };
  let j = 0;
  for (let i = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    swap(i, j);
  }
  const out = Buffer.alloc(data.length);
  let i = 0;
  j = 0;
  for (let k = 0; k < data.length; k++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    swap(i, j);
    out[k] = data[k]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

const padded = (pw: string) => Buffer.concat([Buffer.from(pw, 'latin1'), PAD]).subarray(0, 32);
const md5 = (...parts: Uint8Array[]) => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** The /Encrypt dictionary of a revision-2 (40-bit RC4) lock with `user` as the password. */
function encryptDict(user: string, fileId: Buffer): string {
  const owner = rc4(md5(padded(`${user}-owner`)).subarray(0, 5), padded(user));
  const p = -44;
  const pBytes = Buffer.alloc(4);
  pBytes.writeInt32LE(p);
  const key = md5(padded(user), owner, pBytes, fileId).subarray(0, 5);
  const u = rc4(key, PAD);
  return `<< /Filter /Standard /V 1 /R 2 /O <${owner.toString('hex')}> /U <${u.toString('hex')}> /P ${p} >>`;
}

/** A PDF of the given pages (A4), as bytes. */
export function makePdf(pages: PdfPageSpec[], options: MakePdfOptions = {}): Uint8Array {
  const objects: string[] = [];
  const add = (body: string) => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add('');
  const pageTree = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const grey = Buffer.alloc(64, 0x80).toString('hex');
  const image = add(
    `<< /Type /XObject /Subtype /Image /Width 8 /Height 8 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /ASCIIHexDecode /Length ${grey.length + 1} >>\nstream\n${grey}>\nendstream`,
  );
  const kids: number[] = [];
  for (const page of pages) {
    const ops: string[] = [];
    if (page.image) ops.push('q 595 0 0 842 0 0 cm /Im1 Do Q');
    if (page.lines?.length) {
      ops.push('BT /F1 12 Tf 72 770 Td 16 TL');
      for (const line of page.lines) ops.push(`(${escapeText(line)}) Tj T*`);
      ops.push('ET');
    }
    const content = ops.join('\n');
    const stream = add(
      `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    );
    kids.push(
      add(
        `<< /Type /Page /Parent ${pageTree} 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 ${font} 0 R >> /XObject << /Im1 ${image} 0 R >> >> /Contents ${stream} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pageTree} 0 R >>`;
  objects[pageTree - 1] =
    `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;

  const fileId = md5(Buffer.from(`skilldesk-test-${pages.length}`));
  let trailerExtra = ` /ID [<${fileId.toString('hex')}> <${fileId.toString('hex')}>]`;
  if (options.userPassword !== undefined) {
    const enc = add(encryptDict(options.userPassword, fileId));
    trailerExtra += ` /Encrypt ${enc} 0 R`;
  }

  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}
