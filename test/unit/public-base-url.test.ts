import { describe, expect, it } from 'vitest';
import { publicOrigin } from '../../shared/config.ts';

describe('PUBLIC_BASE_URL', () => {
  it.each([
    ['https://console.example.com', 'https://console.example.com'],
    ['https://Console.Example.COM/', 'https://console.example.com'],
    ['https://d111111abcdef8.cloudfront.net:443', 'https://d111111abcdef8.cloudfront.net'],
    ['http://127.0.0.1:8000', 'http://127.0.0.1:8000'],
    ['http://[::1]:8000/', 'http://[::1]:8000'],
  ])('%s is the origin %s', (value, origin) => {
    expect(publicOrigin(value)).toBe(origin);
  });

  it.each(['console.example.com', 'ftp://example.com', 'https://example.com/api', 'https://example.com/?x=1', 'https://example.com/#top', 'https://user:pw@example.com', 'not a url'])(
    'refuses %s: an http(s) origin and nothing more',
    (value) => {
      expect(publicOrigin(value)).toBeUndefined();
    },
  );
});
