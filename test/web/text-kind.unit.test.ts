// What an agent text is (web/src/lib/text-kind.ts): images and binary data sent as base64 are
// told by their file signature; anything else, however base64-looking, stays text.
import { describe, expect, it } from 'vitest';
import { formatBytes, textKind } from '../../web/src/lib/text-kind.js';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const b64 = (bytes: number[], pad = 200) => Buffer.from([...bytes, ...new Array(pad).fill(7)]).toString('base64');

describe('text kind', () => {
  it('tells images by their signature, as bare base64 or a data URL', () => {
    const png = Buffer.concat([Buffer.from(PNG, 'base64'), Buffer.alloc(100, 1)]).toString('base64');
    expect(textKind(png)).toMatchObject({ kind: 'image', mime: 'image/png', label: 'PNG image', bytes: 170 });
    expect(textKind(`data:image/png;base64,${PNG}`)).toMatchObject({ kind: 'image', mime: 'image/png', bytes: 70 });
    expect(textKind(b64([0xff, 0xd8, 0xff, 0xe0]))).toMatchObject({ kind: 'image', mime: 'image/jpeg' });
    expect(textKind(b64([0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50]))).toMatchObject({ kind: 'image', mime: 'image/webp' });
    // Wrapped at 76 characters, as many tools write it.
    expect(textKind(b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 400).replace(/(.{76})/g, '$1\n'))).toMatchObject({ kind: 'image', mime: 'image/png' });
  });

  it('describes other binary data, and never draws what the signature does not confirm as an image', () => {
    expect(textKind(b64([0x1f, 0x8b, 8, 0]))).toMatchObject({ kind: 'binary', mime: 'application/gzip', label: 'gzip data', bytes: 204 });
    expect(textKind(b64([0x25, 0x50, 0x44, 0x46]))).toMatchObject({ kind: 'binary', label: 'PDF document' });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64');
    expect(textKind(`data:image/svg+xml;base64,${svg}`)).toMatchObject({ kind: 'binary', mime: 'image/svg+xml' });
  });

  it('leaves text as text: words, short base64, base64 of text, JSON', () => {
    expect(textKind('The quick brown fox')).toEqual({ kind: 'text' });
    expect(textKind(PNG)).toEqual({ kind: 'text' }); // under 128 characters: an id or token more likely than a file
    expect(textKind(Buffer.from('hello world '.repeat(40)).toString('base64'))).toEqual({ kind: 'text' });
    expect(textKind(JSON.stringify({ image: `data:image/png;base64,${PNG}` }))).toEqual({ kind: 'text' });
  });

  it('writes sizes for people', () => {
    expect([formatBytes(512), formatBytes(24_883), formatBytes(3_500_000)]).toEqual(['512 B', '24.3 KB', '3.3 MB']);
  });
});
