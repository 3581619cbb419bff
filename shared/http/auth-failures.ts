/**
 * Throttling of failed authentication per source address: the GCRA limiter of rate-limit.ts, in a key
 * space of its own (AUTHFAIL#<source>). Only refused credentials are counted, so a valid key is never
 * slowed, whatever its source has failed. The source is the address API Gateway saw the connection come
 * from (requestContext.http.sourceIp), never a header a client can write (X-Forwarded-For and the like).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import ipaddr from 'ipaddr.js';
import type { RateLimit } from './rate-limit.ts';

/** `perMinute` failures a minute, bursts of `burst`, as the limiter's RateLimit. */
export function authFailureLimit(perMinute: number, burst: number): RateLimit {
  return { perSecond: perMinute / 60, burst };
}

/**
 * The source a failure is counted against: an IPv4 address (an IPv4-mapped IPv6 one as IPv4), or the
 * /64 of an IPv6 address, since one client holds a whole /64 and could otherwise try from each address.
 */
export function failureSource(event: Pick<APIGatewayProxyEventV2, 'requestContext'>): string {
  const ip = event.requestContext.http.sourceIp;
  if (!ipaddr.isValid(ip)) return `unparsed:${ip.slice(0, 64)}`;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}
