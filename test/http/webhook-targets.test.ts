/**
 * Webhook targets through the API, as on AWS (private targets not allowed): an address that is not
 * globally reachable, in any of its IPv6 spellings (IPv4-mapped, NAT64, 6to4, Teredo), and port 0 are
 * refused with a field error and nothing stored; an accepted URL is stored in its WHATWG form.
 */
import { describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';

process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'false';

const http = useHttpTeam({ acme: { users: { root: { superuser: true } } } });

const create = (target_url: string) => http.call('root', 'POST', '/api/v2/webhooks/', { target_url, events: ['request.added'] });

describe('POST /api/v2/webhooks/ refuses targets that are not globally reachable', () => {
  it.each([
    ['discard-only (100::/64)', 'https://[100::1]/hook'],
    ['discard-only, its first address', 'https://[100::]/hook'],
    ['the dummy prefix (100:0:0:1::/64)', 'https://[100:0:0:1::1]/hook'],
    ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/hook'],
    ['IPv4-mapped metadata, hex spelling', 'https://[::ffff:a9fe:a9fe]/latest/meta-data/'],
    ['IPv4-compatible loopback', 'https://[::127.0.0.1]/hook'],
    ['NAT64 (64:ff9b::/96) of a private address', 'https://[64:ff9b::a00:1]/hook'],
    ['local-use NAT64 (64:ff9b:1::/48)', 'https://[64:ff9b:1::a00:1]/hook'],
    ['6to4 (2002::/16) of a private address', 'https://[2002:a00:1::1]/hook'],
    ['6to4 of loopback', 'https://[2002:7f00:1::]/hook'],
    ['Teredo (2001::/32)', 'https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/hook'],
    ['IETF protocol assignments (2001::/23)', 'https://[2001:1::1]/hook'],
    ['benchmarking (2001:2::/48)', 'https://[2001:2::1]/hook'],
    ['documentation (2001:db8::/32)', 'https://[2001:db8::1]/hook'],
    ['documentation (3fff::/20)', 'https://[3fff::1]/hook'],
    ['SRv6 SIDs (5f00::/16)', 'https://[5f00::1]/hook'],
    ['unique local', 'https://[fd12:3456::1]/hook'],
    ['link-local', 'https://[fe80::1]/hook'],
    ['multicast', 'https://[ff02::1]/hook'],
    ['IPv4 loopback', 'https://127.0.0.1/hook'],
    ['IPv4 this network (0.0.0.0/8)', 'https://0.1.2.3/hook'],
    ['IPv4 shared address space', 'https://100.64.1.1/hook'],
    ['IPv4 IETF protocol assignments (192.0.0.0/24)', 'https://192.0.0.8/hook'],
    ['IPv4 TEST-NET-1', 'https://192.0.2.10/hook'],
    ['IPv4 benchmarking', 'https://198.18.0.1/hook'],
    ['IPv4 TEST-NET-2', 'https://198.51.100.7/hook'],
    ['IPv4 TEST-NET-3', 'https://203.0.113.5/hook'],
    ['IPv4 reserved (240.0.0.0/4)', 'https://240.0.0.1/hook'],
    ['IPv4 limited broadcast', 'https://255.255.255.255/hook'],
  ])('%s: %s', async (_, target) => {
    const before = await http.snapshot();
    const answer = await create(target);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toEqual({ target_url: [expect.stringMatching(/resolves to a private, loopback, link-local or metadata address/)] });
    expect(await http.snapshot()).toEqual(before);
  });

  it.each(['https://8.8.8.8:0/hook', 'https://[2606:4700:4700::1111]:0/hook', 'https://8.8.8.8:00/hook'])('refuses port 0: %s', async (target) => {
    const before = await http.snapshot();
    const answer = await create(target);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toEqual({ target_url: ['The target URL must not use port 0.'] });
    expect(await http.snapshot()).toEqual(before);
  });
});

describe('an accepted target', () => {
  it.each([
    ['HTTPS://8.8.8.8:443/a/../hook?x=1', 'https://8.8.8.8/hook?x=1'],
    ['https://[2606:4700:4700:0:0:0:0:1111]:8443/hook', 'https://[2606:4700:4700::1111]:8443/hook'],
    ['https://[2002:808:808::1]/hook', 'https://[2002:808:808::1]/hook'],
    ['https://1.1.1.1', 'https://1.1.1.1/'],
  ])('%s is stored and shown in its WHATWG form %s', async (given, normalised) => {
    const created = await create(given);
    expect(created.status, created.text).toBe(201);
    expect(created.json.target_url).toBe(normalised);
    expect((await http.call('root', 'GET', `/api/v2/webhooks/${created.json.uuid}/`)).json.target_url).toBe(normalised);
    const patched = await http.call('root', 'PATCH', `/api/v2/webhooks/${created.json.uuid}/`, { target_url: given });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.target_url).toBe(normalised);
  });
});
