/**
 * The admin load file: its schema, its whole-file validation (every problem named by its JSON path,
 * checked against the file and the table before anything is written), and its idempotent apply.
 * A new kind of object gets its own top-level array here.
 */
import * as z from 'zod';
import { NAME_PATTERN, NAME_RULE, sameUser, type User } from '../domain/identity.ts';
import { isWellFormedApiKey, parseApiKey } from '../auth/api-key.ts';
import type { IdentityStore } from '../store/identity-store.ts';
import type { RequestStore } from '../store/request-store.ts';
import { CONTENT_TYPES, INPUT_TYPES, type RequestTemplate } from '../domain/request.ts';
import { COMPLIANCE_ALERTS, POLICY_CONTENT_TYPES } from '../domain/catalog.ts';
import type { CatalogStore } from '../store/catalog-store.ts';
import type { ProductPackageStore } from '../store/product-package-store.ts';
import type { PolicyStore } from '../store/policy-store.ts';
import { checkConfig, sameConfig } from '../domain/policy-rules.ts';
import { CatalogService, canonicalPurl } from '../services/catalog.ts';
import type { Caller } from '../domain/caller.ts';
import { isUuid } from '../domain/identifiers.ts';
import { isoWithOffset } from '../domain/time.ts';
import { LicenseBodies, UsagePolicyBodies, VulnerabilityBodies } from '../schemas/catalog.ts';
import { scancodeLibrary } from '../reference/scancode-licensedb.ts';
import { jsonObject } from '../schemas/json-input.ts';
import { visibleName } from '../schemas/common.ts';

/** Where a load file goes. */
export interface LoadTarget {
  readonly identity: IdentityStore;
  readonly requests: RequestStore;
  readonly catalog: CatalogStore;
  readonly productPackages: ProductPackageStore;
  readonly policy: PolicyStore;
}

export interface LoadOptions {
  readonly now: Date;
  /** A new API key, for users who have none and get none from the file. */
  readonly generateKey: () => string;
  readonly newUuid: () => string;
}

/** Django's username rule: letters, digits and @.+-_ only. */
const USERNAME = z
  .string()
  .regex(/^[\w.@+-]{1,150}$/, 'must be 1 to 150 letters, digits or @.+-_ characters');
/** Names are stored in NFC and may hold nothing invisible, as the API's unique names (visibleName). */
const NAME = visibleName(
  (character) => `must not hold invisible characters (${character}): zero-width characters and bidirectional controls are not allowed`,
).regex(NAME_PATTERN, NAME_RULE);

export const LoadFileSchema = z.strictObject({
  dataspaces: z
    .array(
      z.strictObject({
        name: NAME,
        /** The policy rules configuration object; checked by the policy domain, which names every bad key. */
        policy_rules: jsonObject('must be an object: rule type → options').optional(),
      }),
    )
    .default([]),
  groups: z.array(z.strictObject({ name: NAME, dataspace: NAME })).default([]),
  users: z
    .array(
      z.strictObject({
        username: USERNAME,
        email: z.email(),
        dataspace: NAME,
        is_superuser: z.boolean().default(false),
        is_active: z.boolean().default(true),
        groups: z.array(NAME).default([]),
        api_key: z
          .string()
          .refine(isWellFormedApiKey, 'must be at least 43 characters of A-Z, a-z, 0-9, - and _ (32 random bytes)')
          .optional(),
      }),
    )
    .default([]),
  request_templates: z
    .array(
      z.strictObject({
        name: NAME,
        dataspace: NAME,
        description: z.string().max(10_000).default(''),
        content_type: z.enum(CONTENT_TYPES),
        is_active: z.boolean().default(true),
        questions: z
          .array(
            z.strictObject({
              // Answers are stored as a DynamoDB map keyed by label, which cannot hold these two keys.
              label: z
                .string()
                .trim()
                .min(1)
                .max(255)
                .refine((label) => label !== '__proto__' && label !== 'constructor', 'may not be "__proto__" or "constructor"'),
              input_type: z.enum(INPUT_TYPES),
              is_required: z.boolean().default(false),
            }),
          )
          .max(50)
          .default([]),
      }),
    )
    .default([]),
  priorities: z.array(z.strictObject({ label: NAME, dataspace: NAME })).default([]),
  usage_policies: z
    .array(
      z.strictObject({
        label: NAME,
        dataspace: NAME,
        content_type: z.enum(POLICY_CONTENT_TYPES),
        compliance_alert: z.enum(COMPLIANCE_ALERTS).default(''),
        description: z.string().max(10_000).default(''),
      }),
    )
    .default([]),
  /**
   * The body of POST /api/v2/licenses/ (LicenseBodies): a reference license key alone adopts it; an
   * existing key updates the fields given.
   */
  licenses: z.array(z.looseObject({ dataspace: NAME, key: z.string() })).default([]),
  /** As a vulnerability feed would send them; the API's own rules apply (VulnerabilityBodies). */
  vulnerabilities: z.array(z.looseObject({ dataspace: NAME, vulnerability_id: z.string() })).default([]),
});

export type LoadFile = z.infer<typeof LoadFileSchema>;

export type Validation = { ok: true; file: LoadFile } | { ok: false; problems: string[] };

function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : `${acc}.${String(part)}`),
    '$',
  );
}

export async function validateLoadFile(raw: unknown, target: LoadTarget): Promise<Validation> {
  const store = target.identity;
  const parsed = LoadFileSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((issue) => `${jsonPath(issue.path)}: ${issue.message}`) };
  }
  const file = parsed.data;
  const problems: string[] = [];

  const dataspaces = new Set<string>();
  for (const [i, dataspace] of file.dataspaces.entries()) {
    if (dataspaces.has(dataspace.name)) problems.push(`$.dataspaces[${i}].name: "${dataspace.name}" is listed twice`);
    dataspaces.add(dataspace.name);
    if (dataspace.policy_rules !== undefined) {
      const checked = checkConfig(dataspace.policy_rules);
      if (!checked.ok) {
        for (const [key, messages] of Object.entries(checked.errors)) {
          problems.push(`$.dataspaces[${i}].policy_rules.${key}: ${messages.join(' ')}`);
        }
      }
    }
  }
  const knownDataspaces = new Map<string, boolean>();
  const dataspaceExists = async (name: string) => {
    if (dataspaces.has(name)) return true;
    if (!knownDataspaces.has(name)) knownDataspaces.set(name, (await store.getDataspace(name)) !== undefined);
    return knownDataspaces.get(name)!;
  };

  const groups = new Set<string>();
  for (const [i, group] of file.groups.entries()) {
    const id = `${group.dataspace}/${group.name}`;
    if (groups.has(id)) problems.push(`$.groups[${i}]: group "${group.name}" of "${group.dataspace}" is listed twice`);
    groups.add(id);
    if (!(await dataspaceExists(group.dataspace))) {
      problems.push(`$.groups[${i}].dataspace: dataspace "${group.dataspace}" does not exist`);
    }
  }

  const usernames = new Set<string>();
  const keyIds = new Map<string, string>();
  for (const [i, user] of file.users.entries()) {
    const at = `$.users[${i}]`;
    if (usernames.has(user.username)) problems.push(`${at}.username: "${user.username}" is listed twice`);
    usernames.add(user.username);
    if (!(await dataspaceExists(user.dataspace))) {
      problems.push(`${at}.dataspace: dataspace "${user.dataspace}" does not exist`);
    }
    const existing = await store.getUser(user.username);
    if (existing && existing.dataspace !== user.dataspace) {
      problems.push(`${at}.dataspace: user "${user.username}" already belongs to dataspace "${existing.dataspace}"`);
    }
    for (const [j, group] of user.groups.entries()) {
      const inFile = groups.has(`${user.dataspace}/${group}`);
      if (!inFile && !(await store.getGroup(user.dataspace, group))) {
        problems.push(`${at}.groups[${j}]: group "${group}" does not exist in dataspace "${user.dataspace}"`);
      }
    }
    if (user.api_key !== undefined) {
      const { keyId } = parseApiKey(user.api_key)!;
      const owner = keyIds.get(keyId) ?? (await store.apiKeyOwner(keyId));
      if (owner !== undefined && owner !== user.username) {
        problems.push(`${at}.api_key: this key cannot be used (its first 12 characters are taken); choose another`);
      }
      keyIds.set(keyId, user.username);
    }
  }
  const templates = new Set<string>();
  for (const [i, template] of file.request_templates.entries()) {
    const at = `$.request_templates[${i}]`;
    const id = `${template.dataspace}/${template.name}`;
    if (templates.has(id)) problems.push(`${at}.name: template "${template.name}" of "${template.dataspace}" is listed twice`);
    templates.add(id);
    if (!(await dataspaceExists(template.dataspace))) {
      problems.push(`${at}.dataspace: dataspace "${template.dataspace}" does not exist`);
    }
    const labels = new Set<string>();
    for (const [j, question] of template.questions.entries()) {
      if (labels.has(question.label)) problems.push(`${at}.questions[${j}].label: "${question.label}" is asked twice`);
      labels.add(question.label);
    }
  }
  const priorities = new Set<string>();
  for (const [i, priority] of file.priorities.entries()) {
    const id = `${priority.dataspace}/${priority.label}`;
    if (priorities.has(id)) problems.push(`$.priorities[${i}].label: "${priority.label}" of "${priority.dataspace}" is listed twice`);
    priorities.add(id);
    if (!(await dataspaceExists(priority.dataspace))) {
      problems.push(`$.priorities[${i}].dataspace: dataspace "${priority.dataspace}" does not exist`);
    }
  }
  const policies = new Set<string>();
  for (const [i, policy] of file.usage_policies.entries()) {
    const id = `${policy.dataspace}/${policy.label}`;
    if (policies.has(id)) problems.push(`$.usage_policies[${i}].label: "${policy.label}" of "${policy.dataspace}" is listed twice`);
    policies.add(id);
    if (!(await dataspaceExists(policy.dataspace))) problems.push(`$.usage_policies[${i}].dataspace: dataspace "${policy.dataspace}" does not exist`);
  }
  const licenses = new Set<string>();
  for (const [i, entry] of file.licenses.entries()) {
    const at = `$.licenses[${i}]`;
    const { dataspace, ...body } = entry;
    const parsed = LicenseBodies.create.safeParse(body);
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((issue) => `${jsonPath([...(['licenses', i] as PropertyKey[]), ...issue.path])}: ${issue.message}`));
      continue;
    }
    const reference = scancodeLibrary().byKey(parsed.data.key);
    const key = reference?.key ?? parsed.data.key;
    if (licenses.has(`${dataspace}/${key}`)) problems.push(`${at}.key: "${key}" is listed twice`);
    licenses.add(`${dataspace}/${key}`);
    if (!(await dataspaceExists(dataspace))) {
      problems.push(`${at}.dataspace: dataspace "${dataspace}" does not exist`);
      continue;
    }
    if (parsed.data.name === undefined && !reference && !(await target.catalog.licenses.getByUnique(dataspace, [key])).has(key)) {
      problems.push(`${at}.name: required: "${key}" is not a reference license key to adopt`);
    }
    const policy = parsed.data.usage_policy;
    if (policy !== null) {
      const inFile = file.usage_policies.some((p) => p.dataspace === dataspace && p.label === policy && p.content_type === 'license');
      const stored = (await target.catalog.usagePolicies.getByUnique(dataspace, [policy])).get(policy);
      if (!inFile && stored?.contentType !== 'license') problems.push(`${at}.usage_policy: no license usage policy "${policy}" in dataspace "${dataspace}"`);
    }
  }
  const vulnerabilities = new Set<string>();
  for (const [i, entry] of file.vulnerabilities.entries()) {
    const at = `$.vulnerabilities[${i}]`;
    const { dataspace, ...body } = entry;
    const parsed = VulnerabilityBodies.create.safeParse(body);
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((issue) => `${jsonPath([...(['vulnerabilities', i] as PropertyKey[]), ...issue.path])}: ${issue.message}`));
      continue;
    }
    const id = `${dataspace}/${parsed.data.vulnerability_id}`;
    if (vulnerabilities.has(id)) problems.push(`${at}.vulnerability_id: "${parsed.data.vulnerability_id}" is listed twice`);
    vulnerabilities.add(id);
    if (!(await dataspaceExists(dataspace))) problems.push(`${at}.dataspace: dataspace "${dataspace}" does not exist`);
    for (const [j, affected] of parsed.data.affected_packages.entries()) {
      if (!(await packageExists(target.catalog, dataspace, affected.package))) {
        problems.push(`${at}.affected_packages[${j}].package: no package "${affected.package}" in dataspace "${dataspace}"`);
      }
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, file };
}

async function packageExists(catalog: CatalogStore, dataspace: string, reference: string): Promise<boolean> {
  if (isUuid(reference)) return (await catalog.packages.get(reference.toLowerCase()))?.dataspace === dataspace;
  const purl = canonicalPurl(reference);
  return purl !== undefined && (await catalog.packages.getByUnique(dataspace, [purl])).has(purl);
}

/** The catalog service acting for the load, as a superuser of the dataspace. */
function loader(dataspace: string): Caller {
  return { username: 'admin-load', email: '', dataspace, isSuperuser: true, groups: [] };
}

export interface LoadReport {
  readonly created: {
    dataspaces: number;
    groups: number;
    users: number;
    request_templates: number;
    priorities: number;
    usage_policies: number;
    licenses: number;
    vulnerabilities: number;
  };
  readonly updatedUsers: number;
  readonly updatedTemplates: number;
  readonly updatedCatalog: number;
  /** Keys generated for users who had none: shown once, never stored in clear. */
  readonly generatedKeys: { username: string; apiKey: string }[];
}

export async function applyLoadFile(file: LoadFile, target: LoadTarget, { now, generateKey, newUuid }: LoadOptions): Promise<LoadReport> {
  const store = target.identity;
  const report = {
    created: { dataspaces: 0, groups: 0, users: 0, request_templates: 0, priorities: 0, usage_policies: 0, licenses: 0, vulnerabilities: 0 },
    updatedUsers: 0,
    updatedTemplates: 0,
    updatedCatalog: 0,
    generatedKeys: [] as { username: string; apiKey: string }[],
  };
  for (const dataspace of file.dataspaces) {
    if (await store.createDataspace(dataspace.name, now)) report.created.dataspaces++;
    if (dataspace.policy_rules !== undefined) {
      // Validated above; saving re-evaluates the dataspace's products (through the stream), so only a change is saved.
      const checked = checkConfig(dataspace.policy_rules);
      const current = await target.policy.getConfig(dataspace.name);
      if (checked.ok && !sameConfig(current.config, checked.config)) {
        await target.policy.saveConfig(dataspace.name, checked.config, current.rev, isoWithOffset(now));
        report.updatedCatalog++;
      }
    }
  }
  for (const group of file.groups) {
    if (await store.createGroup(group, now)) report.created.groups++;
  }
  for (const entry of file.users) {
    const user: User = {
      username: entry.username,
      email: entry.email,
      dataspace: entry.dataspace,
      isSuperuser: entry.is_superuser,
      isActive: entry.is_active,
      groups: [...new Set(entry.groups)].sort(),
    };
    const previous = await store.getUser(user.username);
    if (!previous) {
      await store.saveUser(user, undefined, now);
      report.created.users++;
    } else if (!sameUser(previous, user)) {
      await store.saveUser(user, previous, now);
      report.updatedUsers++;
    }
    if (entry.api_key !== undefined) {
      await store.replaceApiKey(user.username, entry.api_key, now);
    } else if ((await store.apiKeyCount(user.username)) === 0) {
      const apiKey = generateKey();
      await store.replaceApiKey(user.username, apiKey, now);
      report.generatedKeys.push({ username: user.username, apiKey });
    }
  }
  for (const entry of file.request_templates) {
    // A template is known by its name in its dataspace: loading it again updates it in place.
    const existing = await target.requests.getTemplateByName(entry.dataspace, entry.name);
    const template: RequestTemplate = {
      uuid: existing?.uuid ?? newUuid(),
      dataspace: entry.dataspace,
      name: entry.name,
      description: entry.description,
      contentType: entry.content_type,
      isActive: entry.is_active,
      questions: entry.questions.map((q) => ({ label: q.label, inputType: q.input_type, isRequired: q.is_required })),
    };
    if (await target.requests.saveTemplate(template, existing)) {
      if (existing) report.updatedTemplates++;
      else report.created.request_templates++;
    }
  }
  for (const priority of file.priorities) {
    if (await target.requests.createPriority(priority)) report.created.priorities++;
  }
  // Catalog objects go through the catalog service, so the API's rules apply; unchanged ones are left alone.
  const catalog = new CatalogService({ catalog: target.catalog, productPackages: target.productPackages, now: () => now, newUuid });
  const here = 'https://admin.load';
  for (const { dataspace, ...entry } of file.usage_policies) {
    const existing = (await target.catalog.usagePolicies.getByUnique(dataspace, [entry.label])).get(entry.label);
    const body = UsagePolicyBodies.create.parse(entry);
    const unchanged =
      existing?.contentType === body.content_type && existing.complianceAlert === body.compliance_alert && existing.description === body.description;
    if (unchanged) continue;
    await catalog.saveUsagePolicy(loader(dataspace), existing?.uuid, () => body, here);
    if (existing) report.updatedCatalog++;
    else report.created.usage_policies++;
  }
  for (const { dataspace, ...entry } of file.licenses) {
    const body = LicenseBodies.create.parse(entry);
    const key = scancodeLibrary().byKey(body.key)?.key ?? body.key;
    const existing = (await target.catalog.licenses.getByUnique(dataspace, [key])).get(key);
    if (existing) {
      const before = await catalog.retrieveLicense(loader(dataspace), existing.uuid, here);
      const after = await catalog.saveLicense(loader(dataspace), existing.uuid, () => ({ ...body, key }), here, { dryRun: true });
      if (JSON.stringify({ ...before }) === JSON.stringify(after)) continue;
    }
    await catalog.saveLicense(loader(dataspace), existing?.uuid, () => ({ ...body, key }), here);
    if (existing) report.updatedCatalog++;
    else report.created.licenses++;
  }
  for (const { dataspace, ...entry } of file.vulnerabilities) {
    const body = VulnerabilityBodies.create.parse(entry);
    const existing = (await target.catalog.vulnerabilities.getByUnique(dataspace, [body.vulnerability_id])).get(body.vulnerability_id);
    if (existing) {
      const before = await catalog.retrieveVulnerability(loader(dataspace), existing.uuid, here);
      const after = await catalog.saveVulnerability(loader(dataspace), existing.uuid, () => body, here, { dryRun: true });
      if (JSON.stringify(before) === JSON.stringify(after)) continue;
    }
    await catalog.saveVulnerability(loader(dataspace), existing?.uuid, () => body, here);
    if (existing) report.updatedCatalog++;
    else report.created.vulnerabilities++;
  }
  return report;
}
