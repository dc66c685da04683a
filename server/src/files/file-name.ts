// Characters that must never reach a stored name or a Content-Disposition header: control characters
// (CR/LF would split headers) and the bidirectional controls that make "gnp.exe" look like "exe.png".
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const MAX_BYTES = 255;

/** The customer's file name made safe to show and to send back: no path, no control characters, ≤255 bytes. */
export function sanitizeFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  let name = base.replace(UNSAFE, '').replace(/\s+/g, ' ').trim().replace(/^\.+/, '');
  if (Buffer.byteLength(name) > MAX_BYTES) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : '';
    let stem = name.slice(0, name.length - ext.length);
    while (Buffer.byteLength(stem + ext) > MAX_BYTES) stem = [...stem].slice(0, -1).join('');
    name = stem + ext;
  }
  return name;
}

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}
