/**
 * Rate limits in the stack: each API key is throttled inside the API functions (5 a second, bursts of
 * 20, DejaCode-style), and the whole stage by API Gateway (50 a second, bursts of 100).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KEY_RATE_LIMIT } from '../../lib/compliance-stack.ts';
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

  it('lets a read-only API function update rate-limit items, and only those', () => {
    for (const name of [...routeFunctions].filter((fn) => FUNCTIONS[fn].table === 'read')) {
      const updates = roleStatements(synth, synth.stack.functions[name]).filter((s) => actionsOf([s]).has('dynamodb:UpdateItem'));
      expect(updates, name).toHaveLength(1);
      expect(updates[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } });
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
