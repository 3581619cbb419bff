/**
 * Rate limits in the stack: each API key is throttled inside the API functions (5 a second, bursts of
 * 20, DejaCode-style), each dataspace across its keys (100 a second, bursts of 200), failed
 * authentication per source address (30 a minute, bursts of 10), and the whole stage by API Gateway
 * (the account's default quota: 10,000 a second, bursts of 5,000). All of them are CDK context.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_FAILURE_LIMIT, DEFAULT_DATASPACE_RATE_LIMIT, DEFAULT_KEY_RATE_LIMIT } from '../../lib/compliance-stack.ts';
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
      expect(environmentOf(synth, name)).toMatchObject({
        RATE_LIMIT_PER_SECOND: '5',
        RATE_LIMIT_BURST: '20',
        DATASPACE_RATE_LIMIT_PER_SECOND: '100',
        DATASPACE_RATE_LIMIT_BURST: '200',
      });
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
    expect(environmentOf(synth, name)).not.toHaveProperty('DATASPACE_RATE_LIMIT_PER_SECOND');
  });

  it("lets a read-only API function update rate-limit and failed-authentication items and its callers' API keys (their last use), and only those", () => {
    for (const name of [...routeFunctions].filter((fn) => FUNCTIONS[fn].table === 'read')) {
      const updates = roleStatements(synth, synth.stack.functions[name]).filter((s) => actionsOf([s]).has('dynamodb:UpdateItem'));
      expect(updates, name).toHaveLength(1);
      expect(updates[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*', 'AUTHFAIL#*', 'APIKEY#*'] } });
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

describe('the per-dataspace quota in the API functions', () => {
  it('defaults to 100 requests a second with bursts of 200: a hundredth of the default stage, and 20 keys at their limit', () => {
    expect(DEFAULT_DATASPACE_RATE_LIMIT).toEqual({ perSecond: 100, burst: 200 });
    expect(DEFAULT_THROTTLE.rateLimit / DEFAULT_DATASPACE_RATE_LIMIT.perSecond).toBe(100);
    expect(DEFAULT_DATASPACE_RATE_LIMIT.perSecond / DEFAULT_KEY_RATE_LIMIT.perSecond).toBe(20);
  });

  it('is set on exactly the functions the per-key limit is set on, and takes other limits from the stack props', () => {
    const limited = allFunctions.filter((name) => 'DATASPACE_RATE_LIMIT_PER_SECOND' in environmentOf(synth, name));
    expect(limited.sort()).toEqual(allFunctions.filter((name) => 'RATE_LIMIT_PER_SECOND' in environmentOf(synth, name)).sort());
    const custom = synthesize({ dataspaceRateLimit: { perSecond: 40, burst: 80 } });
    expect(environmentOf(custom, 'products')).toMatchObject({ DATASPACE_RATE_LIMIT_PER_SECOND: '40', DATASPACE_RATE_LIMIT_BURST: '80' });
    expect(() => synthesize({ dataspaceRateLimit: { perSecond: 0, burst: 10 } })).toThrow(/Dataspace rate limit/);
    expect(() => synthesize({ dataspaceRateLimit: { perSecond: 5, burst: 0 } })).toThrow(/Dataspace rate limit/);
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
  it("defaults the $default stage to the account's default quota of a region: 10,000 a second, bursts of 5,000", () => {
    expect(DEFAULT_THROTTLE).toEqual({ rateLimit: 10_000, burstLimit: 5_000 });
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: { ThrottlingRateLimit: 10_000, ThrottlingBurstLimit: 5_000 },
    });
  });

  it('takes other stage limits from the stack props, and refuses limits that admit nothing', () => {
    synthesize({ apiThrottle: { rateLimit: 300, burstLimit: 600 } }).template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 },
    });
    expect(() => synthesize({ apiThrottle: { rateLimit: 0, burstLimit: 600 } })).toThrow(/Stage throttle/);
  });

  it('lets one key use its whole allowance: the stage is wider than any single key', () => {
    expect(DEFAULT_THROTTLE.rateLimit).toBeGreaterThan(DEFAULT_KEY_RATE_LIMIT.perSecond);
    expect(DEFAULT_THROTTLE.burstLimit).toBeGreaterThan(DEFAULT_KEY_RATE_LIMIT.burst);
  });
});
