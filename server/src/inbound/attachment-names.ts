// Extensions by declared Content-Type, the variants clients send included ("image/jpg" from some
// phones, "image/pjpeg" and "image/x-png" from old Outlooks, zip under its Windows name).
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/x-png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/pjpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'application/json': 'json',
  'application/zip': 'zip',
  'application/x-zip-compressed': 'zip',
  'message/rfc822': 'eml',
  'text/calendar': 'ics',
  'text/html': 'html',
};

/** What attachmentName needs of one of mailparser's attachments. */
interface Part {
  filename?: string | undefined;
  contentType: string;
  related?: boolean | undefined;
  content: Uint8Array;
}

/**
 * The name a mail's file is stored and checked under: its own, else one made from its content (the
 * bytes' magic, which an upload's check trusts too) or, failing that, from its declared type:
 * "inline-3.jpg" for an unnamed image/jpg part, not "inline-3.bin" that the checks refuse.
 */
export async function attachmentName(part: Part, index: number): Promise<string> {
  if (part.filename?.trim()) return part.filename;
  // Loaded with the first unnamed file (file-type costs about 0.1 s at start).
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(part.content).catch(() => undefined);
  const ext = sniffed?.ext ?? EXTENSIONS[part.contentType.toLowerCase()] ?? 'bin';
  return `${part.related ? 'inline' : 'attachment'}-${index + 1}.${ext}`;
}
