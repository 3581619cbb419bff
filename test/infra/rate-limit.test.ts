/**
 * Rate limits in the stack: each API key is throttled inside the API functions (5 a second, bursts of
 * 20, DejaCode-style), failed authentication per source address (30 a minute, bursts of 10), and the
 * whole stage by API Gateway (50 a second, bursts of 100).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_FAILURE_LIMIT, DEFAULT_KEY_RATE_LIMIT } from '../../lib/compliance-stack.ts';
import { DEFAULT_THROTTLE } from '../../lib/constructs/http-api.ts';
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';
import { ROUTES } from '../../shared/routes/index.ts';
import { actionsOf, logicalId, roleStatements, synthesize, type Synthesized } from './helpers.ts';

const routeFunctions = new Set<FunctionName>(ROUTES.map((route) => route.function));
const allFunctions = Object.keys(FUNCTIONS) as FunctionName[];

function environmentOf(synth: Synthesized, name: FunctionName): Record<string, unknown> {
  const id = logicalId(synth.stack, synth.stack.functions[name].function);
  return synth.template.toJSON().Resources[id].Properties.Environment.Variables as Record<string, unknown>;
}

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize();
});

describe('per-key throttling in the API functions', () => {
  it('defaults to 5 requests a second with bursts of 20', () => {
    expect(DEFAULT_KEY_RATE_LIMIT).toEqual({ perSecond: 5, burst: 20 });
  });

  it.each([...routeFunctions].filter((name) => FUNCTIONS[name].table === 'read-write'))(
    'is set on %s, which serves routes and may write the limiter state',
    (name) => {
      expect(environmentOf(synth, name)).toMatchObject({ RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '20' });
      expect(actionsOf(roleStatements(synth, synth.stack.functions[name])).has('dynamodb:UpdateItem')).toBe(true);
    },
  );

  it('is set on exactly the route functions that use the table', () => {
    const limited = allFunctions.filter((name) => 'RATE_LIMIT_PER_SECOND' in environmentOf(synth, name));
    expect(limited.sort()).toEqual([...routeFunctions].filter((name) => FUNCTIONS[name].table !== 'none').sort());
  });

  it.each(allFunctions.filter((name) => !routeFunctions.has(name)))('is not set on %s, which serves no route', (name) => {
    expect(environmentOf(synth, name)).not.toHaveProperty('RATE_LIMIT_PER_SECOND');
    expect(environmentOf(synth, name)).not.toHaveProperty('RATE_LIMIT_BURST');
  });

  it('lets a read-only API function update rate-limit and failed-authentication items, and only those', () => {
    for (const name of [...routeFunctions].filter((fn) => FUNCTIONS[fn].table === 'read')) {
      const updates = roleStatements(synth, synth.stack.functions[name]).filter((s) => actionsOf([s]).has('dynamodb:UpdateItem'));
      expect(updates, name).toHaveLength(1);
      expect(updates[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*', 'AUTHFAIL#*'] } });
      expect(environmentOf(synth, name), name).toHaveProperty('RATE_LIMIT_PER_SECOND');
    }
  });

  it('takes other limits from the stack props, and refuses limits that admit nothing', () => {
    const custom = synthesize({ keyRateLimit: { perSecond: 2, burst: 10 } });
    expect(environmentOf(custom, 'products')).toMatchObject({ RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '10' });
    expect(() => synthesize({ keyRateLimit: { perSecond: 0, burst: 10 } })).toThrow(/Key rate limit/);
    expect(() => synthesize({ keyRateLimit: { perSecond: 2, burst: 0.5 } })).toThrow(/Key rate limit/);
  });
});

describe('failed-authentication throttling in the API functions', () => {
  const authenticating = [...routeFunctions].filter((name) => FUNCTIONS[name].table !== 'none');

  it('defaults to 30 failures a minute per source address, with bursts of 10', () => {
    expect(DEFAULT_AUTH_FAILURE_LIMIT).toEqual({ perMinute: 30, burst: 10 });
  });

  it('is set on every route function that authenticates, and on no other', () => {
    for (const name of authenticating) {
      expect(environmentOf(synth, name), name).toMatchObject({ AUTH_FAILURES_PER_MINUTE: '30', AUTH_FAILURES_BURST: '10' });
      expect(actionsOf(roleStatements(synth, synth.stack.functions[name])).has('dynamodb:UpdateItem'), name).toBe(true);
    }
    const limited = allFunctions.filter((name) => 'AUTH_FAILURES_PER_MINUTE' in environmentOf(synth, name));
    expect(limited.sort()).toEqual(authenticating.sort());
  });

  it('takes other limits from the stack props, and refuses limits that admit nothing', () => {
    const custom = synthesize({ authFailureLimit: { perMinute: 12, burst: 4 } });
    expect(environmentOf(custom, 'api-root')).toMatchObject({ AUTH_FAILURES_PER_MINUTE: '12', AUTH_FAILURES_BURST: '4' });
    expect(() => synthesize({ authFailureLimit: { perMinute: 0, burst: 4 } })).toThrow(/Failed-authentication limit/);
    expect(() => synthesize({ authFailureLimit: { perMinute: 12, burst: 0 } })).toThrow(/Failed-authentication limit/);
  });
});

describe('stage throttling', () => {
  it('keeps rate 50 and burst 100 on the $default stage', () => {
    expect(DEFAULT_THROTTLE).toEqual({ rateLimit: 50, burstLimit: 100 });
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
  });

  it('lets one key use its whole allowance: the stage is wider than any single key', () => {
    expect(DEFAULT_THROTTLE.rateLimit).toBeGreaterThan(DEFAULT_KEY_RATE_LIMIT.perSecond);
    expect(DEFAULT_THROTTLE.burstLimit).toBeGreaterThan(DEFAULT_KEY_RATE_LIMIT.burst);
  });
});
