import { describe, expect, it } from 'vitest';
import { attachmentName } from './attachment-names.js';

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(64)]);
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64)]);

describe('attachmentName', () => {
  it('keeps the name a mail gives its file', async () => {
    expect(await attachmentName({ filename: 'lid.jpg', contentType: 'image/jpeg', content: JPEG }, 0)).toBe('lid.jpg');
  });

  it('names an unnamed part from its content before its declared type', async () => {
    expect(await attachmentName({ contentType: 'image/jpg', related: true, content: JPEG }, 2)).toBe('inline-3.jpg');
    // Declared a JPEG, a PNG in truth: the name follows the bytes, which the upload check trusts.
    expect(await attachmentName({ contentType: 'image/jpg', content: PNG }, 0)).toBe('attachment-1.png');
  });

  it('falls back to the declared type, its variants included, and then to .bin', async () => {
    const text = Buffer.from('order 4711\n');
    expect(await attachmentName({ contentType: 'text/csv', content: text }, 0)).toBe('attachment-1.csv');
    expect(await attachmentName({ contentType: 'application/x-zip-compressed', content: text }, 1)).toBe(
      'attachment-2.zip',
    );
    expect(await attachmentName({ contentType: 'application/x-unknown', content: text }, 3)).toBe('attachment-4.bin');
  });
});
