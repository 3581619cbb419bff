/**
 * The web console's DOM-free logic: how it reads the API's error bodies and links, calls the API
 * (the key in the header only), and turns the policy rules form and a template's questions into
 * bodies the API accepts, with the API's own messages for the ones it would refuse.
 */
import { describe, expect, it } from 'vitest';
import { ApiClient, ApiError, apiPath, errorReport, pageOf, uuidOf, withQuery, type Fetch } from '../../web/src/lib/api-client.ts';
import { checkForm, configFromForm, formFromRules, formReason, inputId, withCategory, type PolicyRule } from '../../web/src/lib/policy-form.ts';
import { emptyAnswers, serializeAnswers, type Question } from '../../web/src/lib/template-form.ts';
import { RULES, RULE_TYPES, effectiveConfig, ruleReason } from '../../shared/domain/policy-rules.ts';
import { href, parseHash } from '../../web/src/router.ts';
import type * as z from 'zod';
import type { CommentSchema, RequestSchema, RequestTemplateSchema } from '../../shared/schemas/request.ts';
import type { DeliveryAttemptSchema, PingResultSchema, WebhookSchema } from '../../shared/schemas/webhooks.ts';
import { WEBHOOK_EVENT_TYPES as CONSOLE_EVENT_TYPES, type Comment, type Delivery, type PingResult, type ServiceRequest, type Webhook } from '../../web/src/pages/types.ts';
import { EVENT_TYPE_NAMES } from '../../shared/events/catalog.ts';
import type { RequestTemplate } from '../../web/src/lib/template-form.ts';

/**
 * Checked by tsc (npm test's typecheck), not at run time: what the API's schemas answer fits the types
 * the console writes by hand for them (their schema modules hold Node code the browser build cannot type).
 */
type Fits<Answer extends Expected, Expected> = [Answer, Expected];
export type ConsoleTypesFitTheApi = [
  Fits<z.output<typeof RequestSchema>, ServiceRequest>,
  Fits<z.output<typeof CommentSchema>, Comment>,
  Fits<z.output<typeof RequestTemplateSchema>, RequestTemplate>,
  Fits<z.output<typeof WebhookSchema>, Webhook>,
  Fits<z.output<typeof DeliveryAttemptSchema>, Delivery>,
  Fits<z.output<typeof PingResultSchema>, PingResult>,
];

describe('error bodies', () => {
  it('reads detail, field errors, the permissions endpoint errors object and non_field_errors', () => {
    expect(errorReport(404, { detail: 'Not found.' })).toEqual({ general: ['Not found.'], fields: {} });
    expect(errorReport(400, { text: ['This field is required.'] })).toEqual({ general: [], fields: { text: ['This field is required.'] } });
    expect(errorReport(400, { errors: { non_field_errors: ['Either user or group.'], permissions: ['Bad.'] } })).toEqual({
      general: ['Either user or group.'],
      fields: { permissions: ['Bad.'] },
    });
    expect(errorReport(400, { serialized_data: { Deadline: ['Bad date.'] } }).fields).toEqual({ serialized_data: ['Deadline: Bad date.'] });
  });

  it('says something for a body with nothing to say', () => {
    expect(errorReport(503, {}).general).toEqual(['The service is busy. Try again in a moment.']);
    expect(errorReport(418, undefined).general).toEqual(['The service answered 418.']);
  });
});

describe('API links', () => {
  it('follows absolute links by path on the console origin, whatever host the API named', () => {
    expect(apiPath('https://abc.execute-api.eu-west-1.amazonaws.com/api/v2/products/?page=2&name=x')).toBe('/api/v2/products/?page=2&name=x');
    expect(() => apiPath('https://evil.example.com/steal')).toThrow('Not an API link');
    expect(pageOf('http://h/api/v2/requests/?page=3')).toBe(3);
    expect(pageOf('http://h/api/v2/requests/?status=open')).toBe(1);
    expect(pageOf(null)).toBeUndefined();
    expect(uuidOf('http://h/api/v2/products/6f1c0000-0000-4000-8000-000000000000/')).toBe('6f1c0000-0000-4000-8000-000000000000');
    expect(withQuery('/api/v2/products/', { name: 'a b', version: '', page: 2, x: undefined })).toBe('/api/v2/products/?name=a+b&page=2');
  });
});

describe('ApiClient', () => {
  const recorder = (status: number, body: string, headers: Record<string, string> = {}) => {
    const calls: { input: string; init: Parameters<Fetch>[1] }[] = [];
    const fetcher: Fetch = async (input, init) => {
      calls.push({ input, init });
      return { status, headers: { get: (name) => headers[name.toLowerCase()] ?? null }, text: async () => body };
    };
    return { calls, fetcher };
  };

  it('sends the key in the Authorization header, never in the URL, and JSON bodies with their content type', async () => {
    const { calls, fetcher } = recorder(201, '{"uuid":"u"}');
    const client = new ApiClient('secret-key', fetcher);
    await expect(client.post('/api/v2/products/', { name: 'Toolkit' })).resolves.toEqual({ uuid: 'u' });
    expect(calls[0]!.input).toBe('/api/v2/products/');
    expect(calls[0]!.input).not.toContain('secret-key');
    expect(calls[0]!.init).toEqual({
      method: 'POST',
      headers: { Authorization: 'Token secret-key', Accept: 'application/json', 'Content-Type': 'application/json' },
      body: '{"name":"Toolkit"}',
    });
  });

  it('turns an error answer into an ApiError with its report, and a 429 into a wait', async () => {
    const bad = new ApiClient('k', recorder(400, '{"name":["This field is required."]}').fetcher);
    const error = await bad.get('/api/v2/products/').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).report.fields).toEqual({ name: ['This field is required.'] });

    const throttled = new ApiClient('k', recorder(429, '', { 'retry-after': '3' }).fetcher);
    await expect(throttled.get('/api/v2/')).rejects.toThrow('Too many requests: try again in 3 seconds.');

    const down = new ApiClient('k', async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(down.get('/api/v2/')).rejects.toMatchObject({ status: 0, message: expect.stringContaining('cannot be reached') });
  });

  /** Answers `statuses` in turn (the last one from then on), each 503 with Retry-After: 2. */
  const answering = (...statuses: number[]) => {
    const sent: string[] = [];
    const fetcher: Fetch = async (input, init) => {
      sent.push(`${init.method} ${input}`);
      const status = statuses[Math.min(sent.length, statuses.length) - 1]!;
      return { status, headers: { get: (name) => (name === 'retry-after' && status === 503 ? '2' : null) }, text: async () => (status === 503 ? '{"detail":"busy"}' : '{"ok":true}') };
    };
    return { sent, fetcher };
  };

  it('asks again, after the Retry-After, for a read the service answered 503, at most twice', async () => {
    const waits: number[] = [];
    const wait = async (ms: number) => void waits.push(ms);
    const once = answering(503, 200);
    await expect(new ApiClient('k', once.fetcher, '', wait).get('/api/v2/products/')).resolves.toEqual({ ok: true });
    expect(once.sent).toEqual(['GET /api/v2/products/', 'GET /api/v2/products/']);
    expect(waits).toEqual([2_000]);

    const always = answering(503);
    await expect(new ApiClient('k', always.fetcher, '', wait).get('/api/v2/products/')).rejects.toMatchObject({ status: 503 });
    expect(always.sent).toHaveLength(3);
  });

  it('never sends a write twice: a 503 to a POST, PATCH or DELETE is the error at once', async () => {
    for (const method of ['POST', 'PATCH', 'PUT', 'DELETE'] as const) {
      const busy = answering(503, 200);
      await expect(new ApiClient('k', busy.fetcher, '', async () => undefined).call(method, '/api/v2/products/', {})).rejects.toMatchObject({ status: 503 });
      expect(busy.sent).toEqual([`${method} /api/v2/products/`]);
    }
  });
});

describe('the policy form\'s category checkboxes and reasons', () => {
  const blank = formFromRules([]);

  it('keeps the categories ticked in the reference library\'s order, each once, and sends them as a list', () => {
    let text = withCategory('', 'Proprietary Free', true);
    text = withCategory(text, 'Commercial', true);
    text = withCategory(text, 'Commercial', true);
    expect(text).toBe('Commercial, Proprietary Free');
    expect(withCategory(text, 'Commercial', false)).toBe('Proprietary Free');
    const form = { ...blank, license_policy_error: { ...blank.license_policy_error, parameters: { categories: text } } };
    expect(configFromForm(form).license_policy_error.parameters).toEqual({ categories: ['Commercial', 'Proprietary Free'] });
  });

  it('says why each rule fires as the form stands, and nothing while an input does not check', () => {
    const form = {
      ...blank,
      license_policy_warning: { is_active: true, threshold: '0', parameters: { categories: 'Copyleft, Copyleft Limited' } },
      vulnerability_detected: { is_active: true, threshold: '0', parameters: { min_risk_score: '7' } },
    };
    expect(formReason(form, 'license_policy_warning')).toContain('or is in the categories Copyleft and Copyleft Limited');
    expect(formReason(form, 'vulnerability_detected')).toBe('A package has a known vulnerability with a risk score of 7 or more.');
    expect(formReason({ ...form, vulnerability_detected: { ...form.vulnerability_detected, parameters: { min_risk_score: '11' } } }, 'vulnerability_detected')).toBeUndefined();
  });
});

describe('the policy rules form', () => {
  const rules: PolicyRule[] = RULE_TYPES.map((type) => ({
    rule_type: type,
    label: RULES[type].label,
    description: RULES[type].description,
    reason: ruleReason(type, effectiveConfig({}, type)),
    severity: RULES[type].severity,
    is_active: type === 'vulnerability_stale',
    threshold: type === 'license_coverage_gap' ? 2 : 0,
    parameters: (type === 'vulnerability_stale' ? { max_days: 30, min_risk_score: 8 } : {}) as Record<string, number>,
  }));

  it('round-trips what the API answers into the body it accepts', () => {
    const form = formFromRules(rules);
    expect(form.vulnerability_stale).toEqual({ is_active: true, threshold: '0', parameters: { max_days: '30', min_risk_score: '8' } });
    expect(form.vulnerability_detected.parameters).toEqual({ min_risk_score: '' });
    const check = checkForm(form);
    expect(check.ok).toBe(true);
    expect(configFromForm(form).license_coverage_gap).toEqual({ is_active: false, threshold: 2, parameters: {} });
    // An empty optional parameter is left out, so the rule's default applies.
    expect(configFromForm(form).vulnerability_detected.parameters).toEqual({});
  });

  it("refuses what the API refuses, with the API's key paths and messages", () => {
    const form = formFromRules(rules);
    const check = checkForm({
      ...form,
      license_coverage_gap: { ...form.license_coverage_gap, threshold: '1.5' },
      vulnerability_stale: { is_active: true, threshold: 'lots', parameters: { max_days: '0', min_risk_score: '10.05' } },
      vulnerability_detected: { ...form.vulnerability_detected, parameters: { min_risk_score: 'high' } },
    });
    expect(check).toEqual({
      ok: false,
      errors: {
        'license_coverage_gap.threshold': ['Must be a whole number from 0 to 1000000.'],
        'vulnerability_detected.parameters.min_risk_score': ['Must be a number from 0.0 to 10.0 with at most one decimal place.'],
        'vulnerability_stale.threshold': ['Must be a whole number from 0 to 1000000.'],
        'vulnerability_stale.parameters.max_days': ['Must be a whole number of days from 1 to 36500.'],
        'vulnerability_stale.parameters.min_risk_score': ['Must be a number from 0.0 to 10.0 with at most one decimal place.'],
      },
    });
    expect(inputId('vulnerability_stale.parameters.max_days')).toBe('rule-vulnerability_stale-parameters-max_days');
  });

  it('shows the license categories comma-separated and sends them back as a list, checked as the API checks them', () => {
    const withCategories = rules.map((rule) => (rule.rule_type === 'license_policy_error' ? { ...rule, is_active: true, parameters: { categories: ['Copyleft', 'Commercial'] } } : rule));
    const form = formFromRules(withCategories);
    expect(form.license_policy_error.parameters).toEqual({ categories: 'Copyleft, Commercial' });
    expect(form.license_policy_warning.parameters).toEqual({ categories: '' });
    expect(configFromForm(form).license_policy_error.parameters).toEqual({ categories: ['Copyleft', 'Commercial'] });
    expect(configFromForm(form).license_policy_warning.parameters).toEqual({});
    expect(checkForm(form).ok).toBe(true);
    const wrong = checkForm({ ...form, license_policy_error: { ...form.license_policy_error, parameters: { categories: 'Copyleft, viral' } } });
    expect(wrong).toEqual({ ok: false, errors: { 'license_policy_error.parameters.categories': [expect.stringMatching(/^Unknown category "viral"; choose from /)] } });
  });
});

describe("a template's questions", () => {
  const questions: Question[] = [
    { label: 'Justification', input_type: 'TextField', is_required: true },
    { label: 'Deadline', input_type: 'DateField', is_required: false },
    { label: 'Commercial use', input_type: 'BooleanField', is_required: false },
  ];

  it('become serialized_data keyed by label, unanswered optional ones left out', () => {
    const answers = { ...emptyAnswers(questions), Justification: '  Needed  ', 'Commercial use': true };
    expect(serializeAnswers(questions, answers)).toEqual({ ok: true, data: { Justification: 'Needed', 'Commercial use': true } });
  });

  it("are refused as the API refuses them: a missing required answer, a date that is not one", () => {
    expect(serializeAnswers(questions, { ...emptyAnswers(questions), Deadline: '2026-02-30' })).toEqual({
      ok: false,
      errors: ['"Deadline" must be a date as YYYY-MM-DD.', '"Justification" is required.'],
    });
  });
});

describe('hash routes', () => {
  it('read segments and query, and keep a broken escape as typed instead of throwing', () => {
    expect(parseHash('#/products/abc/compliance?page=2')).toMatchObject({ segments: ['products', 'abc', 'compliance'] });
    expect(parseHash('#/products/abc/compliance?page=2').query.get('page')).toBe('2');
    expect(parseHash('').segments).toEqual([]);
    expect(parseHash('#/products/%E0').segments).toEqual(['products', '%E0']);
    expect(parseHash(href(['requests', 'a b/c'], { ordering: '-title', page: undefined })).segments).toEqual(['requests', 'a b/c']);
  });
});

describe("the console's event types", () => {
  it('are the event catalog, in its order', () => {
    expect([...CONSOLE_EVENT_TYPES]).toEqual(EVENT_TYPE_NAMES);
  });
});
