/**
 * Attribution notices: what a product must ship with itself for the packages it holds (their names,
 * versions, home pages, copyrights, notices and licenses), then each license's full text once. Rendered as
 * a self-contained, printable HTML page (every SBOM-given value escaped) or as plain text. Pure: the
 * product, its packages and the licenses' texts are passed in.
 */
import { licenseKeys, parseLicenseExpression } from './license-expression.ts';
import { UNKNOWN_LICENSE_KEY } from './license-resolution.ts';

export const ATTRIBUTION_FORMATS = ['html', 'text'] as const;
export type AttributionFormat = (typeof ATTRIBUTION_FORMATS)[number];
export const ATTRIBUTION_INCLUDES = ['deployed', 'all'] as const;
export type AttributionInclude = (typeof ATTRIBUTION_INCLUDES)[number];

export interface AttributionPackage {
  readonly name: string;
  readonly version: string;
  readonly purl: string;
  readonly homepageUrl: string;
  readonly copyright: string;
  /** A notice text the package carries (its description is not one); '' when none is known. */
  readonly notice: string;
  /** The effective expression over keys: the product's concluded one when set, else the package's own. */
  readonly licenseExpression: string;
  /** The same in SPDX form, as shown. */
  readonly licenseExpressionSpdx: string;
  /** Licenses kept as written, unresolved: shown as written. */
  readonly unknownLicenses: readonly string[];
}

export interface AttributionLicense {
  readonly key: string;
  readonly name: string;
  readonly spdxKey: string;
  /** The full text; '' when none is known (then the notice says so). */
  readonly text: string;
}

export interface Attribution {
  readonly product: { readonly name: string; readonly version: string };
  readonly packages: readonly AttributionPackage[];
  /** Each license the packages name, once, in key order (unknown-license-reference left out: its texts are the packages' own). */
  readonly licenses: readonly AttributionLicense[];
  readonly generatedAt: string;
}

/** The keys an attribution must give the text of: every license the packages' expressions name, each once, sorted. */
export function attributionLicenseKeys(packages: readonly Pick<AttributionPackage, 'licenseExpression'>[]): string[] {
  const keys = new Set<string>();
  for (const pkg of packages) {
    if (pkg.licenseExpression === '') continue;
    const parsed = parseLicenseExpression(pkg.licenseExpression);
    if (parsed.ok) for (const key of licenseKeys(parsed.expression)) if (key !== UNKNOWN_LICENSE_KEY) keys.add(key);
  }
  return [...keys].sort();
}

/** The packages in the order a reader looks them up: by name, then version, then purl. */
export function sortedForAttribution<T extends Pick<AttributionPackage, 'name' | 'version' | 'purl'>>(packages: readonly T[]): T[] {
  return [...packages].sort((a, b) => a.name.localeCompare(b.name, 'en') || a.version.localeCompare(b.version, 'en') || a.purl.localeCompare(b.purl, 'en'));
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text safe inside HTML elements and quoted attributes. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** An http(s) URL to link to; anything else (javascript:, data:, a typo) is shown as text, not linked. */
const linkable = (url: string) => /^https?:\/\/[^\s"<>]+$/i.test(url.trim());

const anchor = (key: string) => `license-${key.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function expressionHtml(pkg: AttributionPackage, known: ReadonlySet<string>): string {
  if (pkg.licenseExpression === '') return '<em>No license stated</em>';
  // The SPDX form as text, with each license that has a section linked to it by key.
  const parsed = parseLicenseExpression(pkg.licenseExpression);
  const keys = parsed.ok ? licenseKeys(parsed.expression).filter((key) => known.has(key)) : [];
  const links = [...new Set(keys)].map((key) => `<a href="#${anchor(key)}">${escapeHtml(key)}</a>`).join(', ');
  const unknown = pkg.unknownLicenses.length > 0 ? ` <span class="unknown">(as written: ${pkg.unknownLicenses.map((u) => `“${escapeHtml(u)}”`).join(', ')})</span>` : '';
  return `<code>${escapeHtml(pkg.licenseExpressionSpdx)}</code>${unknown}${links ? ` <span class="see">see ${links}</span>` : ''}`;
}

/** A self-contained page: no script, no external asset; styles inline; prints one package block unbroken. */
export function attributionHtml(attribution: Attribution): string {
  const title = `${attribution.product.name}${attribution.product.version ? ` ${attribution.product.version}` : ''}`;
  const known = new Set(attribution.licenses.map((license) => license.key));
  const packages = attribution.packages
    .map((pkg) => {
      const rows = [
        `<h3>${escapeHtml(pkg.name)}${pkg.version ? ` <span class="version">${escapeHtml(pkg.version)}</span>` : ''}</h3>`,
        `<p class="purl"><code>${escapeHtml(pkg.purl)}</code></p>`,
        pkg.homepageUrl ? `<p>Home page: ${linkable(pkg.homepageUrl) ? `<a href="${escapeHtml(pkg.homepageUrl.trim())}">${escapeHtml(pkg.homepageUrl)}</a>` : escapeHtml(pkg.homepageUrl)}</p>` : '',
        `<p>License: ${expressionHtml(pkg, known)}</p>`,
        pkg.copyright ? `<pre class="copyright">${escapeHtml(pkg.copyright)}</pre>` : '',
        pkg.notice ? `<pre class="notice">${escapeHtml(pkg.notice)}</pre>` : '',
      ];
      return `<section class="package">${rows.filter((row) => row !== '').join('')}</section>`;
    })
    .join('\n');
  const licenses = attribution.licenses
    .map(
      (license) =>
        `<section class="license" id="${anchor(license.key)}"><h3>${escapeHtml(license.name)} <span class="key">(${escapeHtml(license.spdxKey || license.key)})</span></h3>` +
        (license.text ? `<pre>${escapeHtml(license.text)}</pre>` : '<p><em>No text of this license is known to the service.</em></p>') +
        '</section>',
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Attribution: ${escapeHtml(title)}</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; color: #111; background: #fff; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; border-bottom: 1px solid #999; margin-top: 2.5rem; } h3 { font-size: 1.05rem; margin: 0 0 .25rem; }
.package, .license { padding: .75rem 0; border-bottom: 1px solid #ddd; break-inside: avoid; }
.version, .key { font-weight: normal; color: #444; } .purl { margin: 0; color: #444; font-size: .85rem; } .unknown { color: #8a4b00; } .see { font-size: .85rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.45 ui-monospace, monospace; background: #f6f6f6; padding: .5rem; margin: .25rem 0; }
code { overflow-wrap: anywhere; } a { color: #0645ad; }
@media print { body { margin: 0; max-width: none; } a { color: inherit; text-decoration: none; } pre { background: none; padding: 0; } .license { break-before: auto; } }
</style>
</head>
<body>
<h1>Attribution: ${escapeHtml(title)}</h1>
<p>This product includes the following ${attribution.packages.length.toLocaleString('en-US')} open source and third-party package${attribution.packages.length === 1 ? '' : 's'}, under the licenses whose full texts follow the list. Generated ${escapeHtml(attribution.generatedAt)}.</p>
<h2>Packages</h2>
${packages || '<p>No packages.</p>'}
<h2>Licenses</h2>
${licenses || '<p>No license texts.</p>'}
</body>
</html>
`;
}

const RULE = '='.repeat(78);

/** Plain text: the same content, for a NOTICE file. */
export function attributionText(attribution: Attribution): string {
  const title = `${attribution.product.name}${attribution.product.version ? ` ${attribution.product.version}` : ''}`;
  const lines: string[] = [`Attribution: ${title}`, '', `This product includes the following ${attribution.packages.length} open source and third-party packages, under the licenses whose full texts follow the list. Generated ${attribution.generatedAt}.`, '', RULE, 'PACKAGES', RULE, ''];
  for (const pkg of attribution.packages) {
    lines.push(`${pkg.name}${pkg.version ? ` ${pkg.version}` : ''}`, `  ${pkg.purl}`);
    if (pkg.homepageUrl) lines.push(`  Home page: ${pkg.homepageUrl}`);
    lines.push(`  License: ${pkg.licenseExpression === '' ? 'no license stated' : pkg.licenseExpressionSpdx}${pkg.unknownLicenses.length > 0 ? ` (as written: ${pkg.unknownLicenses.map((u) => `"${u}"`).join(', ')})` : ''}`);
    if (pkg.copyright) lines.push(...pkg.copyright.split(/\r?\n/).map((line) => `  ${line}`));
    if (pkg.notice) lines.push('', ...pkg.notice.split(/\r?\n/).map((line) => `  ${line}`));
    lines.push('');
  }
  lines.push(RULE, 'LICENSES', RULE, '');
  for (const license of attribution.licenses) {
    lines.push(`${license.name} (${license.spdxKey || license.key})`, '-'.repeat(Math.min(78, license.name.length + (license.spdxKey || license.key).length + 3)), '', license.text ? license.text.trimEnd() : 'No text of this license is known to the service.', '', '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
