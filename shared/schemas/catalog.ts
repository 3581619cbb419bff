/** zod schemas of the catalog endpoints: usage policies, licenses, packages, vulnerabilities, product packages, analyses. */
import * as z from 'zod';
import {
  ANALYSIS_STATES,
  COMPLIANCE_ALERTS,
  HASH_LENGTHS,
  type HashField,
  JUSTIFICATIONS,
  POLICY_CONTENT_TYPES,
  RESPONSES,
} from '../domain/catalog.ts';
import { pageQuery, shown, uniqueName, writableObject } from './common.ts';
import { invisibleCharacter, invisibleMessage } from '../domain/text.ts';

const noControl = (value: string) => !/\p{Cc}/u.test(value);
const text = (max: number) =>
  z.string().trim().max(max, `Ensure this field has no more than ${max} characters.`).refine(noControl, 'Control characters are not allowed.');
const required = (max: number) => text(max).refine((value) => value.length > 0, 'This field may not be blank.');
const choice = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (issue) => (issue.input === undefined ? 'This field is required.' : `"${shown(issue.input)}" is not a valid choice.`),
  });
/** A reference to a usage policy by label: compared in NFC, as labels are stored. */
const optionalLabel = text(100)
  .normalize('NFC')
  .nullable()
  .transform((value) => (value === '' ? null : value));
const isoInstant = z.iso.datetime({ offset: true, error: 'Enter a valid ISO 8601 date/time with a time zone.' });

/** Writable bodies: create (defaults), PUT (every field), PATCH (any field). */
function bodies<T extends z.ZodRawShape>(id: string, fields: T, defaults: Partial<Record<keyof T, unknown>>, readOnly: readonly string[]) {
  const create = Object.fromEntries(
    Object.entries(fields).map(([name, schema]) => [name, name in defaults ? (schema as z.ZodType).default(defaults[name] as never) : schema]),
  ) as T;
  const patch = Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, (schema as z.ZodType).optional()])) as unknown as {
    [K in keyof T]: z.ZodOptional<T[K]>;
  };
  return {
    create: writableObject(create, readOnly).meta({ id: `${id}Create` }),
    update: writableObject(fields, readOnly).meta({ id: `${id}Update` }),
    patch: writableObject(patch, readOnly).meta({ id: `${id}Patch` }),
  };
}

export const UsagePolicyBodies = bodies(
  'UsagePolicy',
  {
    label: uniqueName(50).refine((value) => value.length > 0, 'This field may not be blank.'),
    content_type: choice(POLICY_CONTENT_TYPES),
    compliance_alert: choice(COMPLIANCE_ALERTS),
    description: text(10_000),
  },
  { compliance_alert: '', description: '' },
  ['uuid', 'api_url'],
);

export const UsagePolicySchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    label: z.string(),
    content_type: z.enum(POLICY_CONTENT_TYPES),
    compliance_alert: z.enum(COMPLIANCE_ALERTS),
    description: z.string(),
  })
  .meta({ id: 'UsagePolicy' });

export const LicenseBodies = bodies(
  'License',
  {
    key: uniqueName(50).regex(/^[A-Za-z0-9][A-Za-z0-9.+_-]*$/, 'Use letters, digits and . + _ - only, starting with a letter or digit.'),
    name: required(100),
    short_name: text(100),
    spdx_license_key: text(100),
    usage_policy: optionalLabel,
  },
  { short_name: '', spdx_license_key: '', usage_policy: null },
  ['uuid', 'api_url'],
);

export const LicenseSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    key: z.string(),
    name: z.string(),
    short_name: z.string(),
    spdx_license_key: z.string(),
    usage_policy: z.string().nullable(),
  })
  .meta({ id: 'License' });

/** A hex digest of its algorithm's length (any letter case, stored in lower case), or '' for none. */
const digest = (field: HashField) =>
  z
    .string()
    .trim()
    .regex(new RegExp(`^(|[0-9A-Fa-f]{${HASH_LENGTHS[field]}})$`), `Enter a valid ${field.toUpperCase()} checksum: ${HASH_LENGTHS[field]} hexadecimal digits.`)
    .transform((value) => value.toLowerCase());
const httpUrl = (max: number) =>
  z.union([
    z.literal(''),
    z.url({ protocol: /^https?$/, error: 'Enter a valid http(s) URL.' }).max(max, `Ensure this field has no more than ${max} characters.`),
  ]);

/** The lengths of the descriptive package fields: what an SBOM import keeps of longer values (shared/domain/sbom-import.ts). */
export const PACKAGE_TEXT_LIMITS = { description: 10_000, copyright: 10_000, supplier: 1_000, homepageUrl: 1_024 } as const;

/** The parts of a purl, unique together: NFC and visible (the service checks a purl's decoded parts alike). */
const optionalPart = uniqueName(255);
export const PackageBodies = bodies(
  'Package',
  {
    purl: text(2048).refine((value) => invisibleCharacter(value) === undefined, { error: (issue) => invisibleMessage(invisibleCharacter(String(issue.input))!) }),
    type: optionalPart,
    namespace: optionalPart,
    name: optionalPart,
    version: optionalPart,
    filename: text(255),
    download_url: z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'Enter a valid http(s) URL.' })]),
    md5: digest('md5'),
    sha1: digest('sha1'),
    sha256: digest('sha256'),
    sha512: digest('sha512'),
    description: text(PACKAGE_TEXT_LIMITS.description),
    homepage_url: httpUrl(PACKAGE_TEXT_LIMITS.homepageUrl),
    copyright: text(PACKAGE_TEXT_LIMITS.copyright),
    supplier: text(PACKAGE_TEXT_LIMITS.supplier),
    license_expression: text(1024),
    usage_policy: optionalLabel,
  },
  {
    purl: '',
    type: '',
    namespace: '',
    name: '',
    version: '',
    filename: '',
    download_url: '',
    md5: '',
    sha1: '',
    sha256: '',
    sha512: '',
    description: '',
    homepage_url: '',
    copyright: '',
    supplier: '',
    license_expression: '',
    usage_policy: null,
  },
  ['uuid', 'api_url', 'risk_score', 'affected_by_vulnerabilities'],
);

export const PackageSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    type: z.string(),
    namespace: z.string(),
    name: z.string(),
    version: z.string(),
    purl: z.string(),
    filename: z.string(),
    download_url: z.string(),
    md5: z.string(),
    sha1: z.string(),
    sha256: z.string(),
    sha512: z.string(),
    description: z.string(),
    homepage_url: z.string(),
    copyright: z.string(),
    supplier: z.string().describe('Who supplies the package, as a name (CycloneDX supplier, SPDX PackageSupplier)'),
    license_expression: z.string(),
    usage_policy: z.string().nullable(),
    risk_score: z.number().nullable().describe('The highest risk score of its vulnerabilities'),
    affected_by_vulnerabilities: z.array(z.string()),
  })
  .meta({ id: 'Package' });

export const PackageListQuery = pageQuery({
  purl: z.string().optional(),
  name: z.string().optional(),
  version: z.string().optional(),
  type: z.string().optional(),
});

const riskScore = z
  .number({ error: (issue) => (issue.input === undefined ? 'This field is required.' : 'A valid number is required.') })
  .min(0, 'Ensure this value is between 0.0 and 10.0.')
  .max(10, 'Ensure this value is between 0.0 and 10.0.')
  .refine((value) => value === Math.round(value * 10) / 10, 'Ensure there is no more than 1 decimal place.')
  .nullable();

export const VulnerabilityBodies = bodies(
  'Vulnerability',
  {
    vulnerability_id: text(100).regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'Use letters, digits and . _ : - only.'),
    aliases: z.array(required(100)).max(100),
    summary: text(10_000),
    risk_score: riskScore,
    affected_packages: z
      // `purl` is what GET answers beside the package: sent back, it is ignored.
      .array(writableObject({ package: required(2048), linked_date: isoInstant.optional() }, ['purl']))
      .max(1000, 'Ensure this list has no more than 1000 items.'),
  },
  { aliases: [], summary: '', risk_score: null, affected_packages: [] },
  ['uuid', 'api_url'],
);

export const VulnerabilitySchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    vulnerability_id: z.string(),
    aliases: z.array(z.string()),
    summary: z.string(),
    risk_score: z.number().nullable(),
    affected_packages: z.array(z.object({ package: z.url(), purl: z.string(), linked_date: z.string() })),
  })
  .meta({ id: 'Vulnerability' });

export const ProductPackageCreateSchema = writableObject(
  { product: required(2048), package: required(2048) },
  ['uuid', 'api_url', 'created_date'],
).meta({ id: 'ProductPackageCreate' });

export const ProductPackageSchema = z
  .object({ uuid: z.uuid(), api_url: z.url(), product: z.url(), package: z.url(), created_date: z.string() })
  .meta({ id: 'ProductPackage' });

export const ProductPackageListQuery = pageQuery({ product: z.string().optional().describe('Product uuid') });

const analysisFields = {
  state: choice(ANALYSIS_STATES).nullable(),
  justification: choice(JUSTIFICATIONS).nullable(),
  responses: z.array(choice(RESPONSES)).max(RESPONSES.length),
  detail: text(100_000),
};

export const AnalysisBodies = {
  create: writableObject(
    {
      product_package: required(2048),
      vulnerability_id: required(100),
      state: analysisFields.state.default(null),
      justification: analysisFields.justification.default(null),
      responses: analysisFields.responses.default([]),
      detail: analysisFields.detail.default(''),
    },
    ['uuid', 'api_url', 'created_date', 'last_modified_date'],
  ).meta({ id: 'AnalysisCreate' }),
  update: writableObject(
    { product_package: required(2048).optional(), vulnerability_id: required(100).optional(), ...analysisFields },
    ['uuid', 'api_url', 'created_date', 'last_modified_date'],
  ).meta({ id: 'AnalysisUpdate' }),
  patch: writableObject(
    {
      product_package: required(2048).optional(),
      vulnerability_id: required(100).optional(),
      state: analysisFields.state.optional(),
      justification: analysisFields.justification.optional(),
      responses: analysisFields.responses.optional(),
      detail: analysisFields.detail.optional(),
    },
    ['uuid', 'api_url', 'created_date', 'last_modified_date'],
  ).meta({ id: 'AnalysisPatch' }),
};

export const AnalysisSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    product_package: z.url(),
    vulnerability_id: z.string(),
    state: z.enum(ANALYSIS_STATES).nullable(),
    justification: z.enum(JUSTIFICATIONS).nullable(),
    responses: z.array(z.enum(RESPONSES)),
    detail: z.string(),
    created_date: z.string(),
    last_modified_date: z.string(),
  })
  .meta({ id: 'Analysis' });

export const AnalysisListQuery = pageQuery({ product: z.string().optional().describe('Product uuid') });
