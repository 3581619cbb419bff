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
import { pageQuery, searchQuery, shown, uniqueName, writableObject } from './common.ts';
import { SEARCH_FIELDS } from '../domain/search.ts';
import { REFERENCE_CATEGORIES } from '../domain/reference-license.ts';
import { MAX_SEARCH_TERMS, searchWords } from '../domain/license-search.ts';
import { invisibleCharacter, invisibleMessage } from '../domain/text.ts';

/** A license's category: the reference library's, or '' for none. */
const LICENSE_CATEGORIES = ['', ...REFERENCE_CATEGORIES] as const;

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
    Object.entries(fields).map(([name, schema]) => [name, name in defaults ? (schema as z.ZodType).default(defaults[name]) : schema]),
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

const licenseKey = uniqueName(50).regex(/^[A-Za-z0-9][A-Za-z0-9.+_-]*$/, 'Use letters, digits and . + _ - only, starting with a letter or digit.');
const licenseFields = {
  key: licenseKey,
  name: required(100),
  short_name: text(100),
  spdx_license_key: text(100),
  category: choice(LICENSE_CATEGORIES).describe(`One of the reference library's categories, or "" for none`),
  is_exception: z.boolean(),
  usage_policy: optionalLabel,
};
/** A license's full text: the largest reference text is 90 KB (esri); an item holds 400 KB. */
export const MAX_LICENSE_TEXT = 100_000;
const fullText = z
  .string()
  .max(MAX_LICENSE_TEXT, `Ensure this field has no more than ${MAX_LICENSE_TEXT} characters.`)
  .refine((value) => !/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(value), 'Control characters other than tabs and line breaks are not allowed.')
  .optional()
  .describe("The license's full text. Left out: kept as it is; a license that was never given one answers its reference license's text");
const licenseReadOnly = ['uuid', 'api_url', 'license_expression_spdx'];

/**
 * A license body. Create: a `key` alone adopts the reference license of that key (any letter case),
 * whose key, name, short name, SPDX key, category and exception flag fill what the body does not give;
 * so no field but `key` defaults here (the service fills them). PUT: every field but `category` and
 * `is_exception`, which keep their values when left out (they came after the first clients).
 */
export const LicenseBodies = {
  create: writableObject(
    {
      key: licenseKey.describe('A reference license key (GET /api/v2/reference_licenses/) adopts it: the fields not given are filled from the reference'),
      name: licenseFields.name.optional().describe('Required, unless the key is a reference license key'),
      short_name: licenseFields.short_name.optional().describe('The reference\'s when adopted, else ""'),
      spdx_license_key: licenseFields.spdx_license_key.optional().describe('The reference\'s when adopted, else ""'),
      category: licenseFields.category.optional().describe('The reference\'s when adopted, else ""'),
      is_exception: licenseFields.is_exception.optional().describe('The reference\'s when adopted, else false'),
      usage_policy: licenseFields.usage_policy.default(null),
      text: fullText,
    },
    licenseReadOnly,
  ).meta({ id: 'LicenseCreate' }),
  update: writableObject(
    { ...licenseFields, category: licenseFields.category.optional(), is_exception: licenseFields.is_exception.optional(), text: fullText },
    licenseReadOnly,
  ).meta({ id: 'LicenseUpdate' }),
  patch: writableObject(
    {
      ...(Object.fromEntries(Object.entries(licenseFields).map(([name, schema]) => [name, schema.optional()])) as {
        [K in keyof typeof licenseFields]: z.ZodOptional<(typeof licenseFields)[K]>;
      }),
      text: fullText,
    },
    licenseReadOnly,
  ).meta({ id: 'LicensePatch' }),
};

export const LicenseSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    key: z.string(),
    name: z.string(),
    short_name: z.string(),
    spdx_license_key: z.string(),
    license_expression_spdx: z.string().describe('The license as an SPDX expression: its SPDX key, or LicenseRef-dejacode-<key> when it has none'),
    category: z.enum(LICENSE_CATEGORIES),
    is_exception: z.boolean(),
    usage_policy: z.string().nullable(),
  })
  .meta({ id: 'License' });

/** One license (GET, and the answers of writes): with its full text, which lists leave out. */
export const LicenseDetailSchema = LicenseSchema.extend({
  text: z.string().describe("The license's full text: its own once given one, else its reference license's, else ''"),
}).meta({ id: 'LicenseDetail' });

/** At most this many characters of a mapping's `text`: a license name or URL, not a license text. */
const MAX_MAPPING_TEXT = 500;
/** At most this many characters of a mapping's `license_expression`. */
const MAX_MAPPING_EXPRESSION = 1_000;

/**
 * A license mapping body: a license as written, and what it means. Both fields on create and PUT;
 * either on PATCH. The expression is checked against the dataspace's licenses by the service.
 */
export const LicenseMappingBodies = bodies(
  'LicenseMapping',
  {
    text: required(MAX_MAPPING_TEXT).describe(
      'A license as written in SBOMs or package data (a name, tag or URL), matched case-insensitively after the same normalisation as ScanCode\'s names: punctuation, whitespace, "licence"/"license" and version spellings aside',
    ),
    license_expression: required(MAX_MAPPING_EXPRESSION).describe("What it means: a license expression of keys or SPDX ids of this dataspace's licenses or the reference library's"),
  },
  {},
  ['uuid', 'api_url', 'license_expression_spdx'],
);

export const LicenseMappingSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    text: z.string(),
    license_expression: z.string().describe('The canonical expression over license keys'),
    license_expression_spdx: z.string().describe('The same expression with SPDX ids'),
  })
  .meta({ id: 'LicenseMapping' });

/** `?is_exception=`: django-filter's BooleanFilter words; anything else is refused, as the choice filters are. */
const booleanFilter = z
  .string()
  .optional()
  .refine((value) => value === undefined || ['', 'true', 'false', '1', '0'].includes(value.toLowerCase()), {
    error: (issue) => `Select a valid choice. ${shown(issue.input)} is not one of the available choices.`,
  })
  .describe('true or false (also 1 or 0)');

/** `?category=`, django-filter's ChoiceFilter: one of the categories, else a 400. */
const categoryFilter = z
  .enum(['', ...REFERENCE_CATEGORIES], { error: (issue) => `Select a valid choice. ${shown(issue.input)} is not one of the available choices.` })
  .optional()
  .describe('Exact category');

const searchFilter = z
  .string()
  .optional()
  .refine((value) => value === undefined || searchWords(value).length <= MAX_SEARCH_TERMS, `Ensure this value has at most ${MAX_SEARCH_TERMS} words.`);

export const LicenseListQuery = pageQuery({
  key: z.string().optional().describe('Exact key'),
  spdx_license_key: z.string().optional().describe('SPDX key, any letter case'),
  category: categoryFilter,
  is_exception: booleanFilter,
  search: searchFilter.describe(
    'Words (a quoted phrase is one word), each contained, in any letter case, in the key, name, short name or SPDX key',
  ),
});

export const ReferenceLicenseSchema = z
  .object({
    key: z.string(),
    short_name: z.string(),
    name: z.string(),
    category: z.enum(REFERENCE_CATEGORIES),
    spdx_license_key: z.string().describe('The SPDX id, a LicenseRef-scancode-… one, or "" for some deprecated licenses'),
    other_spdx_license_keys: z.array(z.string()).describe('Older or alternative SPDX ids (GPL-2.0+, LicenseRef-…)'),
    is_exception: z.boolean(),
    is_deprecated: z.boolean(),
  })
  .meta({ id: 'ReferenceLicense' });

/** One reference license with its full text (the detail answer; lists leave the text out). */
export const ReferenceLicenseDetailSchema = ReferenceLicenseSchema.extend({
  text: z.string().describe("The license's full text, from ScanCode's LicenseDB (CC-BY-4.0); '' for the few licenses it holds none of"),
}).meta({ id: 'ReferenceLicenseDetail' });

export const ReferenceLicenseListQuery = pageQuery({
  key: z.string().optional().describe('Key, any letter case'),
  spdx_license_key: z.string().optional().describe('SPDX id, any letter case: the current one or one of other_spdx_license_keys'),
  category: categoryFilter,
  is_exception: booleanFilter,
  search: searchFilter.describe('Words (a quoted phrase is one word), each contained, in any letter case, in the key, name, short name or SPDX id'),
});
const LICENSE_EXPRESSION_HELP =
  'AND, OR, WITH and parentheses over catalog keys, reference keys or SPDX ids (LicenseRef-…, deprecated ids), any letter case; ' +
  'what resolves to no license, or free text, is kept as unknown-license-reference and listed in unknown_licenses';

/** A license text as written: every character but controls (free text such as "SEE LICENSE IN LICENSE.md" is kept). */
const licenseText = (max: number) => text(max);

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
    // The fields SBOMs carry came after PUT required every field: a PUT without them keeps them (as DRF
    // does for fields with a default).
    md5: digest('md5').optional(),
    sha1: digest('sha1').optional(),
    sha256: digest('sha256').optional(),
    sha512: digest('sha512').optional(),
    description: text(PACKAGE_TEXT_LIMITS.description).optional(),
    homepage_url: httpUrl(PACKAGE_TEXT_LIMITS.homepageUrl).optional(),
    copyright: text(PACKAGE_TEXT_LIMITS.copyright).optional(),
    supplier: text(PACKAGE_TEXT_LIMITS.supplier).optional(),
    license_expression: licenseText(1024).describe(LICENSE_EXPRESSION_HELP),
    // Optional even in PUT, which required every field before it existed.
    declared_license_expression: licenseText(4096)
      .optional()
      .describe('The license as the package declares it, any text; given without license_expression (or with a blank one), it is resolved into license_expression'),
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
  ['uuid', 'api_url', 'risk_score', 'affected_by_vulnerabilities', 'vulnerabilities', 'license_expression_spdx', 'unknown_licenses', 'resolved_from'],
);

/** One license as written that was recognised, not named by key or SPDX id, and what said so. */
export const ResolvedFromSchema = z
  .object({
    written: z.string().describe('The license as the document or the write named it'),
    license_expression: z.string().describe('The expression it resolved to, over license keys'),
    by: z.enum(['mapping', 'name', 'url', 'text']).describe("What recognised it: a dataspace license mapping, or ScanCode's rules for a license name, URL or full text"),
    rule: z.string().describe("The ScanCode rule or license file that says so (apache-2.0_1308.RULE), the mapping's uuid, or 'reference library' for a reference license's own name"),
  })
  .meta({ id: 'LicenseResolution' });

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
    license_expression: z.string().describe('Canonical, over license keys (dataspace or reference keys; unknown-license-reference for what resolved to nothing)'),
    declared_license_expression: z.string().describe('The license text as written'),
    license_expression_spdx: z.string().describe("license_expression with each key's SPDX id as known now (LicenseRef-… for keys without one)"),
    unknown_licenses: z.array(z.string()).describe('The symbols or free text that resolved to no license, as written'),
    resolved_from: z.array(ResolvedFromSchema).describe('The licenses as written that were recognised by name, URL, text or mapping (docs/license-expressions.md)'),
    usage_policy: z.string().nullable(),
    risk_score: z.number().nullable().describe('The highest risk score of its vulnerabilities'),
    affected_by_vulnerabilities: z.array(z.string()),
    vulnerabilities: z
      .array(
        z.object({
          vulnerability_id: z.string(),
          risk_score: z.number().nullable(),
          linked_date: z.string(),
          fixed_versions: z.array(z.string()).describe('The versions that fix this package (from the published advisory that matched it; empty when none is known)'),
        }),
      )
      .describe('Its vulnerabilities, by id, with what fixes each'),
  })
  .meta({ id: 'Package' });

/** A package as a product holds it (GET /api/v2/products/{uuid}/packages/): the package and what the product concluded. */
export const ProductInventoryPackageSchema = PackageSchema.extend({
  concluded_license_expression: z
    .string()
    .describe("The license concluded for this product (its product package's license_expression); '' means the package's own license_expression applies"),
  concluded_license_expression_spdx: z.string().describe('The concluded license with SPDX ids; empty when none is concluded'),
}).meta({ id: 'ProductInventoryPackage' });

const trueOrFalse = z.enum(['true', 'false'], { error: (issue) => `"${shown(issue.input)}" is not a valid choice; use true or false.` }).optional();

/** The filters of a product's inventory: on the package as the product holds it (its concluded license when set). */
export const ProductInventoryQuery = pageQuery({
  search: z.string().max(1_000, 'Ensure this field has no more than 1000 characters.').optional().describe('Words, each contained in the purl or the name, any letter case'),
  license: z.string().optional().describe('A license key the effective expression names (any letter case)'),
  usage_policy: z.string().optional().describe("The package's own usage policy, by label"),
  has_unknown_license: trueOrFalse.describe('true: packages whose effective expression holds an unknown license'),
  vulnerable: trueOrFalse.describe('true: packages with a known vulnerability; false: those without'),
});

export const PackageListQuery = pageQuery({
  purl: z.string().optional(),
  name: z.string().optional(),
  version: z.string().optional(),
  type: z.string().optional(),
  search: searchQuery(SEARCH_FIELDS.packages),
  has_unknown_license: z
    .enum(['true', 'false'], { error: (issue) => `"${shown(issue.input)}" is not a valid choice; use true or false.` })
    .optional()
    .describe('true: packages whose expression holds an unknown license; false: the others'),
  unknown_license: z.string().optional().describe('Packages with this unknown license, exactly as written (an element of unknown_licenses)'),
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
      .array(writableObject({ package: required(2048), linked_date: isoInstant.optional() }, ['purl', 'fixed_versions', 'matched_by']))
      .max(1000, 'Ensure this list has no more than 1000 items.'),
  },
  { aliases: [], summary: '', risk_score: null, affected_packages: [] },
  ['uuid', 'api_url', 'source'],
);

export const VulnerabilitySchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    vulnerability_id: z.string(),
    aliases: z.array(z.string()),
    summary: z.string(),
    risk_score: z.number().nullable(),
    source: z.enum(['manual', 'sbom', 'osv']).describe('typed in (API, load file), from an SBOM or VEX document, or from a published advisory (OSV); written before sources were kept: manual'),
    affected_packages: z.array(
      z.object({
        package: z.url(),
        purl: z.string(),
        linked_date: z.string(),
        fixed_versions: z.array(z.string()).describe('The versions that fix the package, oldest first (empty when none is known)'),
        matched_by: z.string().nullable().describe('The published advisory (OSV id) whose match made the link; null for a link typed in or imported'),
      }),
    ),
  })
  .meta({ id: 'Vulnerability' });

/** One ecosystem's published advisories as this deployment holds them (GET /api/v2/advisory_sources/). */
export const AdvisorySourceSchema = z
  .object({
    ecosystem: z.string().describe('The OSV ecosystem (PyPI, Go, npm, Maven, ...)'),
    records: z.number().int().nullable().describe("The records held whose first affected package is of this ecosystem, withdrawn ones included, as counted at the end of the last load (null if never counted)"),
    last_loaded_date: z.string().nullable().describe('When a load (the admin command or the sync) last took records of it in'),
    last_synced_date: z.string().nullable().describe('When the scheduled sync last ran for it (null: loaded by the admin command only)'),
    synced_until: z.string().nullable().describe("The newest `modified` the sync has taken in: its next run reads only records modified after it"),
  })
  .meta({ id: 'AdvisorySource' });

export const AdvisorySourceListQuery = pageQuery({});

export const VulnerabilityListQuery = pageQuery({
  vulnerability_id: z.string().optional().describe('Exact vulnerability id (one reservation lookup)'),
});

const PRODUCT_PACKAGE_READ_ONLY = ['uuid', 'api_url', 'created_date', 'license_expression_spdx'];
const flag = z.boolean({ error: 'Must be a valid boolean.' });
const productPackageFields = {
  license_expression: licenseText(1024).describe(`The license concluded for this product ('' means the package's own): ${LICENSE_EXPRESSION_HELP}`),
  is_deployed: flag.describe('The package is deployed with the product'),
  is_modified: flag.describe('The product modifies the package'),
};

export const ProductPackageBodies = {
  create: writableObject(
    {
      product: required(2048),
      package: required(2048),
      license_expression: productPackageFields.license_expression.default(''),
      is_deployed: productPackageFields.is_deployed.default(true),
      is_modified: productPackageFields.is_modified.default(false),
    },
    PRODUCT_PACKAGE_READ_ONLY,
  ).meta({ id: 'ProductPackageCreate' }),
  // The product and the package may be sent back as GET answers them; changing them is a 400.
  update: writableObject(
    { product: required(2048).optional(), package: required(2048).optional(), ...productPackageFields },
    PRODUCT_PACKAGE_READ_ONLY,
  ).meta({ id: 'ProductPackageUpdate' }),
  patch: writableObject(
    {
      product: required(2048).optional(),
      package: required(2048).optional(),
      license_expression: productPackageFields.license_expression.optional(),
      is_deployed: productPackageFields.is_deployed.optional(),
      is_modified: productPackageFields.is_modified.optional(),
    },
    PRODUCT_PACKAGE_READ_ONLY,
  ).meta({ id: 'ProductPackagePatch' }),
};

export const ProductPackageSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    product: z.url(),
    package: z.url(),
    license_expression: z.string().describe("The license concluded for this product, canonical over keys; '' means the package's own"),
    license_expression_spdx: z.string(),
    is_deployed: z.boolean(),
    is_modified: z.boolean(),
    created_date: z.string(),
  })
  .meta({ id: 'ProductPackage' });

export const ProductPackageListQuery = pageQuery({
  product: z.string().optional().describe('Product uuid'),
  package: z.string().optional().describe('Package uuid, API URL or purl: the products that use it (those the caller can see)'),
});

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
