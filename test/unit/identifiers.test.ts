/** Identifiers the service derives: stableUuid is a real UUID v5 (RFC 9562), computed here independently. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { STABLE_UUID_NAMESPACE, stableUuid, isUuid } from '../../shared/domain/identifiers.ts';

/** RFC 9562 section 5.5, by hand: SHA-1 of the namespace's 16 bytes and the name, version 5, variant 10. */
function v5ByHand(name: string, namespace: string): string {
  const bytes = createHash('sha1').update(Buffer.from(namespace.replaceAll('-', ''), 'hex')).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe('stableUuid', () => {
  it.each(['arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/x|7', 'evt|sub', '', 'ünïcode ✓'])('is the UUID v5 of %j in the service namespace', (text) => {
    const id = stableUuid(text);
    expect(id).toBe(v5ByHand(text, STABLE_UUID_NAMESPACE));
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('5');
    expect(stableUuid(text)).toBe(id);
  });

  it('gives different texts different ids', () => {
    expect(stableUuid('a|b')).not.toBe(stableUuid('a|c'));
  });
});
