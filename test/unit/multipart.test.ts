import { describe, expect, it } from 'vitest';
import { MultipartError, multipartBoundary, parseMultipart } from '../../shared/http/multipart.ts';

/** A body as Node's fetch (undici) encodes a FormData, with its Content-Type. */
async function encoded(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const request = new Request('http://x.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

describe('multipart/form-data', () => {
  it('reads the parts a real client sends: a file with its name and type, and plain fields', async () => {
    const document = '{"bomFormat": "CycloneDX",\r\n--not-a-boundary\r\n "specVersion": "1.6"}';
    const form = new FormData();
    form.append('input_file', new Blob([document], { type: 'application/vnd.cyclonedx+json' }), 'bom é.json');
    form.append('update_existing_packages', 'true');
    const { body, contentType } = await encoded(form);
    const parts = parseMultipart(body, multipartBoundary(contentType)!);
    expect(parts.map((p) => [p.name, p.filename, p.contentType, p.data.toString()])).toEqual([
      ['input_file', 'bom é.json', 'application/vnd.cyclonedx+json', document],
      ['update_existing_packages', undefined, '', 'true'],
    ]);
  });

  it('reads what curl -F writes, preamble and quoted boundary included, bytes as sent', () => {
    const binary = Buffer.from([0xff, 0x00, 0x0d, 0x0a, 0x2d, 0x2d]);
    const body = Buffer.concat([
      Buffer.from('preamble to ignore\r\n--XyZ\r\nContent-Disposition: form-data; name="input_file"; filename="a;b.json"\r\nContent-Type: application/json\r\n\r\n'),
      binary,
      Buffer.from('\r\n--XyZ\r\nContent-Disposition: form-data; name="mode"\r\n\r\nmerge\r\n--XyZ--\r\nepilogue'),
    ]);
    const parts = parseMultipart(body, multipartBoundary('multipart/form-data; boundary="XyZ"')!);
    expect(parts[0]!.filename).toBe('a;b.json');
    expect(parts[0]!.data.equals(binary)).toBe(true);
    expect(parts[1]!.data.toString()).toBe('merge');
  });

  it.each([
    ['no boundary', () => multipartBoundary('multipart/form-data')],
    ['a boundary of 71 characters', () => multipartBoundary(`multipart/form-data; boundary=${'a'.repeat(71)}`)],
    ['no closing boundary', () => parseMultipart(Buffer.from('--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nx'), 'b')],
    ['no boundary at all', () => parseMultipart(Buffer.from('just text'), 'b')],
    ['a field twice', () => parseMultipart(Buffer.from('--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n2\r\n--b--'), 'b')],
    ['a part without a name', () => parseMultipart(Buffer.from('--b\r\nContent-Disposition: form-data\r\n\r\n1\r\n--b--'), 'b')],
    ['a part without Content-Disposition', () => parseMultipart(Buffer.from('--b\r\nContent-Type: text/plain\r\n\r\n1\r\n--b--'), 'b')],
    ['an encoded part', () => parseMultipart(Buffer.from('--b\r\nContent-Disposition: form-data; name="a"\r\nContent-Transfer-Encoding: base64\r\n\r\neA==\r\n--b--'), 'b')],
    ['a header line without a colon', () => parseMultipart(Buffer.from('--b\r\nContent-Disposition form-data\r\n\r\n1\r\n--b--'), 'b')],
  ])('refuses %s', (_, read) => {
    expect(read).toThrow(MultipartError);
  });

  it('is not multipart for another type', () => {
    expect(multipartBoundary('application/json')).toBeUndefined();
    expect(multipartBoundary(undefined)).toBeUndefined();
  });
});
