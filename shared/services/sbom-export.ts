/**
 * SBOM export: gathers what a product holds (its packages with their licenses in SPDX form and the
 * product's concluded ones, dependencies, vulnerabilities with the product's analyses) into an
 * ExportModel, which the CycloneDX and SPDX writers render. Reads: the product's partition (one
 * Query), its packages and vulnerabilities in batches, the licenses the expressions name once.
 */
import type { Caller } from '../domain/caller.ts';
import type { Analysis, Package, ProductPackage } from '../domain/catalog.ts';
import { UNKNOWN_LICENSE_SPDX } from '../domain/license-resolution.ts';
import { isoSeconds } from '../domain/time.ts';
import type { ExportModel, ExportPackage, ExportVulnerability } from '../sbom/export-model.ts';
import { writeCycloneDx, type CycloneDxDocument, type CycloneDxOptions } from '../sbom/write-cyclonedx.ts';
import { cyclonedxXml } from '../sbom/write-cyclonedx-xml.ts';
import { writeSpdx, type SpdxDocument } from '../sbom/write-spdx.ts';
import { writeSpdx3, type Spdx3Document } from '../sbom/write-spdx3.ts';
import type { SpdxSpecVersion } from '../sbom/export-options.ts';
import type { CatalogStore } from '../store/catalog-store.ts';
import type { PolicyStore } from '../store/policy-store.ts';
import type { LicenseIndexes } from './license-indexes.ts';
import type { ProductService } from './products.ts';
import { attributionHtml, attributionLicenseKeys, attributionText, sortedForAttribution, type AttributionFormat, type AttributionInclude } from '../domain/attribution.ts';
import { scancodeTexts, type LicenseTexts } from '../reference/scancode-texts.ts';
import { productUrl } from './products.ts';

export interface SbomExportDeps {
  readonly products: Pick<ProductService, 'authorize'>;
  readonly policy: Pick<PolicyStore, 'readProduct'>;
  readonly catalog: CatalogStore;
  readonly licenseIndexes: LicenseIndexes;
  readonly now: () => Date;
  readonly newUuid: () => string;
  readonly tool: { readonly name: string; readonly version: string };
  /** The reference licenses' full texts (attribution); the shipped ones, read on first use, by default. */
  readonly licenseTexts?: () => Pick<LicenseTexts, 'text'>;
}

export interface AttributionOptions {
  readonly format: AttributionFormat;
  readonly include: AttributionInclude;
}

export interface ExportedDocument<D> {
  readonly document: D;
  readonly filename: string;
}

/** A file name from the product's name and version: letters, digits, '.', '_' and '-' only. */
export function exportFilename(product: { name: string; version: string }, suffix: string): string {
  const stem = [product.name, product.version]
    .filter((part) => part !== '')
    .join('-')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+|_+$/g, '')
    .slice(0, 100);
  return `${stem || 'product'}.${suffix}`;
}

const byPurl = (a: { purl: string; uuid: string }, b: { purl: string; uuid: string }) =>
  a.purl < b.purl ? -1 : a.purl > b.purl ? 1 : a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;

export class SbomExportService {
  constructor(private readonly deps: SbomExportDeps) {}

  async cyclonedx(caller: Caller, productUuid: string, options: CycloneDxOptions, baseUrl: string): Promise<ExportedDocument<CycloneDxDocument>> {
    const { model, product } = await this.model(caller, productUuid, baseUrl);
    const suffix = options.content === 'vex' ? 'vex.cdx.json' : 'cdx.json';
    return { document: writeCycloneDx(model, options), filename: exportFilename(product, suffix) };
  }

  /** The same BOM as CycloneDX XML: the JSON document written as XML (write-cyclonedx-xml.ts). */
  async cyclonedxXml(caller: Caller, productUuid: string, options: CycloneDxOptions, baseUrl: string): Promise<ExportedDocument<string>> {
    const { document, filename } = await this.cyclonedx(caller, productUuid, options, baseUrl);
    return { document: cyclonedxXml(document, options.specVersion), filename: filename.replace(/json$/, 'xml') };
  }

  async spdx(caller: Caller, productUuid: string, baseUrl: string, specVersion: SpdxSpecVersion = '2.3'): Promise<ExportedDocument<SpdxDocument | Spdx3Document>> {
    const { model, product } = await this.model(caller, productUuid, baseUrl);
    if (specVersion === '3.0') return { document: writeSpdx3(model), filename: exportFilename(product, 'spdx3.json') };
    return { document: writeSpdx(model), filename: exportFilename(product, 'spdx.json') };
  }

  /**
   * The product's attribution notice: its packages (the deployed ones unless `include` is all) with the
   * effective license (the concluded one when set), then each license's text once. Reads: the product's
   * partition (one Query), its packages in batches, the licenses they name once; the texts from the file.
   */
  async attribution(caller: Caller, productUuid: string, options: AttributionOptions): Promise<{ body: string; filename: string; contentType: string }> {
    const product = await this.deps.products.authorize(caller, productUuid, 'view');
    const data = await this.deps.policy.readProduct(product.uuid);
    const productPackages = (data?.productPackages ?? []).filter((pp) => options.include === 'all' || pp.isDeployed);
    const packages = await this.deps.catalog.packages.getMany(productPackages.map((pp) => pp.packageUuid));
    const byUuid = new Map(packages.map((pkg) => [pkg.uuid, pkg]));
    const held = productPackages.filter((pp) => byUuid.has(pp.packageUuid));
    const effective = held.map((pp) => {
      const pkg = byUuid.get(pp.packageUuid)!;
      const concluded = pp.licenseExpression !== '';
      return { pkg, licenseExpression: concluded ? pp.licenseExpression : pkg.licenseExpression, licenseKeys: concluded ? pp.licenseKeys : pkg.licenseKeys, unknownLicenses: concluded ? pp.unknownLicenses : pkg.unknownLicenses };
    });
    const spdx = await this.deps.licenseIndexes.spdxRenderer(product.dataspace, effective);
    const attributionPackages = sortedForAttribution(
      effective.map(({ pkg, licenseExpression, unknownLicenses }) => ({
        name: pkg.name,
        version: pkg.version,
        purl: pkg.purl,
        homepageUrl: pkg.homepageUrl,
        copyright: pkg.copyright,
        notice: '',
        licenseExpression,
        licenseExpressionSpdx: spdx(licenseExpression),
        unknownLicenses,
      })),
    );
    const keys = attributionLicenseKeys(attributionPackages);
    const own = keys.length > 0 ? await this.deps.catalog.licenses.getByUnique(product.dataspace, keys) : new Map();
    const library = this.deps.licenseIndexes.library;
    const texts = (this.deps.licenseTexts ?? scancodeTexts)();
    // A dataspace license's own text comes first (GET /licenses/{uuid}/ answers it); else the reference text of its key.
    const ownTexts = await this.deps.catalog.licenseTexts([...own.values()].map((license) => license.uuid));
    const licenses = keys.map((key) => {
      const reference = library.byKey(key);
      const license = own.get(key);
      const text = (license && ownTexts.get(license.uuid)) || texts.text(key) || '';
      return { key, name: license?.name || reference?.name || key, spdxKey: spdx(key), text };
    });
    const attribution = { product: { name: product.name, version: product.version }, packages: attributionPackages, licenses, generatedAt: isoSeconds(this.deps.now()) };
    return options.format === 'text'
      ? { body: attributionText(attribution), filename: exportFilename(product, 'attribution.txt'), contentType: 'text/plain; charset=utf-8' }
      : { body: attributionHtml(attribution), filename: exportFilename(product, 'attribution.html'), contentType: 'text/html; charset=utf-8' };
  }

  /** What the product holds, as the writers take it; 404 for a product the caller cannot view. */
  async model(caller: Caller, productUuid: string, baseUrl: string) {
    const product = await this.deps.products.authorize(caller, productUuid, 'view');
    const data = await this.deps.policy.readProduct(product.uuid);
    const productPackages = data?.productPackages ?? [];
    const analyses = data?.analyses ?? [];
    const packages = await this.deps.catalog.packages.getMany(productPackages.map((pp) => pp.packageUuid));
    const byUuid = new Map(packages.map((pkg) => [pkg.uuid, pkg]));
    const held = productPackages.filter((pp) => byUuid.has(pp.packageUuid));
    const spdx = await this.deps.licenseIndexes.spdxRenderer(product.dataspace, [...packages, ...held]);
    const unknownTexts = new Set<string>();
    const exportPackages = held.map((pp) => this.exportPackage(byUuid.get(pp.packageUuid)!, pp, spdx, unknownTexts)).sort(byPurl);
    // One ref stands for every package's unknown licenses: its text lists them all, each once (not only
    // the first package's, as it did: the others' texts were missing from the document).
    const licenseRefs = new Map<string, { name: string; text: string }>();
    if (unknownTexts.size > 0) licenseRefs.set(UNKNOWN_LICENSE_SPDX, { name: 'Unknown license reference', text: [...unknownTexts].join('\n') });
    const vulnerabilities = await this.vulnerabilities(product.dataspace, held, byUuid, analyses);
    const model: ExportModel = {
      product: { uuid: product.uuid, name: product.name, version: product.version, apiUrl: productUrl(baseUrl, product.uuid) },
      packages: exportPackages,
      dependencies: dependenciesOf(held),
      vulnerabilities,
      timestamp: isoSeconds(this.deps.now()),
      documentUuid: this.deps.newUuid(),
      tool: this.deps.tool,
      licenseRefs,
    };
    return { model, product };
  }

  private exportPackage(
    pkg: Package,
    pp: ProductPackage,
    spdx: (expression: string) => string,
    unknownTexts: Set<string>,
  ): ExportPackage {
    const declaredLicenseSpdx = spdx(pkg.licenseExpression);
    const concludedLicenseSpdx = spdx(pp.licenseExpression);
    // An unknown license exports as ScanCode's unknown-license-reference; its text is what was written.
    for (const [expression, unknown] of [
      [declaredLicenseSpdx, pkg.unknownLicenses],
      [concludedLicenseSpdx, pp.unknownLicenses],
    ] as const) {
      if (expression.includes(UNKNOWN_LICENSE_SPDX)) for (const text of unknown) unknownTexts.add(text);
    }
    return {
      uuid: pkg.uuid,
      purl: pkg.purl,
      type: pkg.type,
      namespace: pkg.namespace,
      name: pkg.name,
      version: pkg.version,
      declaredLicenseSpdx,
      concludedLicenseSpdx,
      hashes: {
        ...(pkg.md5 ? { md5: pkg.md5 } : {}),
        ...(pkg.sha1 ? { sha1: pkg.sha1 } : {}),
        ...(pkg.sha256 ? { sha256: pkg.sha256 } : {}),
        ...(pkg.sha512 ? { sha512: pkg.sha512 } : {}),
      },
      description: pkg.description,
      homepageUrl: pkg.homepageUrl,
      downloadUrl: pkg.downloadUrl,
      supplier: pkg.supplier,
      copyright: pkg.copyright,
      filename: pkg.filename,
      isModified: pp.isModified,
      isDeployed: pp.isDeployed,
    };
  }

  /** The vulnerabilities of the product's packages, each with the product's analysis per package. */
  private async vulnerabilities(
    dataspace: string,
    held: readonly ProductPackage[],
    packages: ReadonlyMap<string, Package>,
    analyses: readonly Analysis[],
  ): Promise<ExportVulnerability[]> {
    const affected = new Map<string, string[]>();
    for (const pp of held) {
      for (const id of Object.keys(packages.get(pp.packageUuid)!.vulnerabilities)) (affected.get(id) ?? affected.set(id, []).get(id)!).push(pp.packageUuid);
    }
    if (affected.size === 0) return [];
    const found = await this.deps.catalog.vulnerabilities.getByUnique(dataspace, [...affected.keys()]);
    const analysisOf = new Map(analyses.map((a) => [`${a.packageUuid}|${a.vulnerabilityId}`, a]));
    return [...affected.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, uuids]) => {
        const vulnerability = found.get(id);
        return {
          id,
          aliases: vulnerability?.aliases ?? [],
          summary: vulnerability?.summary ?? '',
          riskScore: vulnerability?.riskScore ?? null,
          affects: uuids.sort().map((packageUuid) => {
            const analysis = analysisOf.get(`${packageUuid}|${id}`);
            const fixedVersions = packages.get(packageUuid)!.vulnerabilities[id]?.fixedVersions ?? [];
            return {
              packageUuid,
              analysis: analysis ? { state: analysis.state, justification: analysis.justification, responses: analysis.responses, detail: analysis.detail } : null,
              fixedVersions,
            };
          }),
        };
      });
  }
}

/** package uuid → the package uuids it depends on within the product. */
function dependenciesOf(held: readonly ProductPackage[]): Map<string, string[]> {
  const inProduct = new Set(held.map((pp) => pp.packageUuid));
  const dependencies = new Map<string, string[]>();
  for (const pp of held) {
    const on = pp.dependsOn.filter((uuid) => inProduct.has(uuid));
    if (on.length > 0) dependencies.set(pp.packageUuid, [...new Set(on)].sort());
  }
  return dependencies;
}
