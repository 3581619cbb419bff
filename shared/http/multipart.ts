/**
 * A small, strict reader of `multipart/form-data` bodies (RFC 7578), for the one endpoint that takes a
 * file (POST /api/v2/products/{uuid}/load_sboms/, as DejaCode's form posts it). It reads the parts of a
 * body already in memory: no streaming, no nested multipart, no transfer encodings; each part needs a
 * `Content-Disposition: form-data; name="…"` header, and a name given twice is refused. Anything it
 * cannot read is a MultipartError, which the caller answers with 400.
 */

export interface FormPart {
  readonly name: string;
  /** The file name a file part was sent with; undefined for a plain field. */
  readonly filename: string | undefined;
  /** The part's Content-Type ('' when none). */
  readonly contentType: string;
  readonly data: Buffer;
}

export class MultipartError extends Error {}

/** The boundary of a multipart/form-data Content-Type, or undefined when the type is another. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const [type, ...parameters] = contentType.split(';');
  if (type!.trim().toLowerCase() !== 'multipart/form-data') return undefined;
  for (const parameter of parameters) {
    const [name, ...rest] = parameter.split('=');
    if (name!.trim().toLowerCase() !== 'boundary') continue;
    const value = rest.join('=').trim().replace(/^"(.*)"$/, '$1');
    // RFC 2046: 1 to 70 characters.
    if (value.length === 0 || value.length > 70) throw new MultipartError('The multipart boundary must have 1 to 70 characters.');
    return value;
  }
  throw new MultipartError('multipart/form-data without a boundary.');
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** Every part of the body, in order. */
export function parseMultipart(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  let position = body.indexOf(delimiter);
  if (position !== 0 && !(position > 0 && body.subarray(position - 2, position).equals(CRLF))) {
    throw new MultipartError('The body does not start with the multipart boundary.');
  }
  const parts: FormPart[] = [];
  const names = new Set<string>();
  for (;;) {
    position += delimiter.length;
    // "--" after a delimiter ends the body.
    if (body.subarray(position, position + 2).toString() === '--') break;
    // Transport padding (spaces, tabs) may follow a delimiter, then CRLF.
    while (body[position] === 0x20 || body[position] === 0x09) position++;
    if (!body.subarray(position, position + 2).equals(CRLF)) throw new MultipartError('A multipart boundary is not followed by a line break.');
    position += 2;
    const headerEnd = body.indexOf(HEADER_END, position);
    if (headerEnd < 0) throw new MultipartError('A part of the multipart body has no end of headers.');
    const headers = parseHeaders(body.subarray(position, headerEnd).toString('latin1'));
    const next = body.indexOf(Buffer.concat([CRLF, delimiter]), headerEnd + 4);
    if (next < 0) throw new MultipartError('The multipart body ends before its closing boundary.');
    const part = partOf(headers, body.subarray(headerEnd + 4, next));
    if (names.has(part.name)) throw new MultipartError(`The field "${part.name}" is given twice.`);
    names.add(part.name);
    parts.push(part);
    position = next + 2;
  }
  return parts;
}

function parseHeaders(text: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError(`A part header is malformed: "${line.slice(0, 100)}".`);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function partOf(headers: Map<string, string>, data: Buffer): FormPart {
  const disposition = headers.get('content-disposition');
  if (!disposition) throw new MultipartError('A part has no Content-Disposition header.');
  const [kind, ...parameters] = splitParameters(disposition);
  if (kind!.toLowerCase() !== 'form-data') throw new MultipartError('A part is not form-data.');
  const values = new Map<string, string>();
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    if (equals < 0) continue;
    const name = parameter.slice(0, equals).trim().toLowerCase();
    let value = parameter.slice(equals + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    // Names and file names are sent in UTF-8 by browsers and curl; headers arrive as latin1 bytes.
    values.set(name, Buffer.from(value, 'latin1').toString('utf8'));
  }
  const name = values.get('name');
  if (name === undefined || name === '') throw new MultipartError('A part has no field name.');
  if (headers.has('content-transfer-encoding') && !/^(binary|8bit|7bit)$/i.test(headers.get('content-transfer-encoding')!)) {
    throw new MultipartError(`The part "${name}" uses a Content-Transfer-Encoding this service does not read.`);
  }
  return { name, filename: values.get('filename'), contentType: headers.get('content-type') ?? '', data };
}

/** `form-data; name="a;b"; filename="x"` → ['form-data', 'name="a;b"', 'filename="x"']: semicolons inside quotes stay. */
function splitParameters(header: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const character = header[i]!;
    if (character === '\\' && quoted) {
      current += character + (header[i + 1] ?? '');
      i++;
    } else if (character === '"') {
      quoted = !quoted;
      current += character;
    } else if (character === ';' && !quoted) {
      parts.push(current.trim());
      current = '';
    } else current += character;
  }
  parts.push(current.trim());
  return parts;
}
