/** The checks on parsed JSON and on the Host header, without recursion whatever the input. */
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, TOO_DEEP, UNPAIRED_SURROGATE, jsonProblem } from '../../shared/schemas/json-input.ts';
import { isValidHost } from '../../shared/http/api-handler.ts';

const arrays = (n: number): unknown => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`);
const objects = (n: number): unknown => JSON.parse(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);

describe('jsonProblem', () => {
  it.each([
    ['scalars', 1, undefined],
    ['a flat object', { a: 'b', c: [1, 2] }, undefined],
    [`${MAX_JSON_DEPTH} nested arrays`, arrays(MAX_JSON_DEPTH), undefined],
    [`${MAX_JSON_DEPTH} nested objects`, objects(MAX_JSON_DEPTH), undefined],
    [`${MAX_JSON_DEPTH + 1} nested arrays`, arrays(MAX_JSON_DEPTH + 1), TOO_DEEP],
    [`${MAX_JSON_DEPTH + 1} nested objects`, objects(MAX_JSON_DEPTH + 1), TOO_DEEP],
    ['500,000 nested arrays (what a 1 MB body holds)', arrays(500_000), TOO_DEEP],
    ['200,000 nested objects', objects(200_000), TOO_DEEP],
    ['an unpaired high surrogate in a value', { a: ['x\ud800'] }, UNPAIRED_SURROGATE],
    ['an unpaired low surrogate in a key', JSON.parse('{"\\udc00": 1}'), UNPAIRED_SURROGATE],
    ['a surrogate pair', { '😀': '😀' }, undefined],
    ['a key named __proto__', JSON.parse('{"__proto__": [[["\\ud800"]]]}'), UNPAIRED_SURROGATE],
  ])('%s', (_, value, problem) => {
    expect(jsonProblem(value)).toBe(problem);
  });

  it('walks a wide body too', () => {
    expect(jsonProblem(Array.from({ length: 300_000 }, (_, i) => ({ [String(i)]: [i] })))).toBeUndefined();
  });
});

describe('isValidHost', () => {
  it.each(['api.example.com', 'api.example.com:8443', 'localhost', '127.0.0.1:3000', '[::1]', '[::1]:80', 'abc.execute-api.us-east-1.amazonaws.com', 'example.com.'])(
    '%s is a host',
    (host) => expect(isValidHost(host)).toBe(true),
  );

  it.each(['', 'bad host', 'example.com:99999', 'example.com:', '[::1', 'a@b', 'a/b', 'a?b', 'a#b', 'exa_mple.com', '-a.com', 'a..b', 'é.com', 'a:1:2'])(
    '%j is not',
    (host) => expect(isValidHost(host)).toBe(false),
  );
});
