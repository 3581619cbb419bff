/** A call to the bench stack's API as a key's holder, which must answer `expected`; its JSON body, or {}. */
export async function callApi(
  context: { readonly apiUrl: string },
  key: string,
  method: string,
  path: string,
  body: unknown,
  expected: number,
  type = 'application/json',
): Promise<Record<string, any>> {
  const response = await fetch(`${context.apiUrl}${path}`, {
    method,
    headers: { Authorization: `Token ${key}`, 'content-type': type },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
  return text ? (JSON.parse(text) as Record<string, any>) : {};
}
