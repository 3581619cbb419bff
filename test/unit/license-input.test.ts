/**
 * Which license text a package write resolves, and what it stores of it (shared/services/catalog.ts):
 * license_expression unless blank, else declared_license_expression; a canonical expression sent
 * back keeps what it was written as.
 */
import { describe, expect, it } from 'vitest';
import { licenseFields, licenseInput, packageLicense, type PackageLicense } from '../../shared/services/catalog.ts';
import { resolveLicenseExpression, type LicenseIndex } from '../../shared/domain/license-resolution.ts';

const index: LicenseIndex = {
  find: (symbol) =>
    ({ mit: { key: 'mit', spdxKey: 'MIT', isException: false, source: 'dataspace' as const }, 'apache-2.0': { key: 'apache-2.0', spdxKey: 'Apache-2.0', isException: false, source: 'reference' as const } })[
      symbol.toLowerCase() as 'mit'
    ],
};

describe('licenseInput', () => {
  it.each([
    [{}, undefined],
    [{ filename: 'x' }, undefined],
    [{ license_expression: 'MIT' }, { text: 'MIT', field: 'license_expression', declared: undefined }],
    [{ license_expression: '' }, { text: '', field: 'declared_license_expression', declared: undefined }],
    [{ declared_license_expression: 'see LICENSE' }, { text: 'see LICENSE', field: 'declared_license_expression', declared: 'see LICENSE' }],
    [{ license_expression: '', declared_license_expression: 'MIT' }, { text: 'MIT', field: 'declared_license_expression', declared: 'MIT' }],
    [{ license_expression: 'mit', declared_license_expression: 'MIT-ish' }, { text: 'mit', field: 'license_expression', declared: 'MIT-ish' }],
  ])('%j → %j', (body, expected) => {
    const input = licenseInput(body);
    if (expected === undefined) expect(input).toBeUndefined();
    else expect(input).toMatchObject(expected);
  });
});

describe('packageLicense', () => {
  const before: PackageLicense = {
    licenseExpression: 'mit OR unknown-license-reference',
    licenseKeys: ['mit', 'unknown-license-reference'],
    countedLicenseKeys: ['mit'],
    declaredLicenseExpression: 'MIT OR Foo',
    unknownLicenses: ['Foo'],
    resolvedFrom: [],
  };

  it('keeps the declared text and unknowns when the same canonical expression comes back', () => {
    const text = 'mit OR unknown-license-reference';
    const resolved = resolveLicenseExpression(text, { find: (s) => (s === 'unknown-license-reference' ? { key: s, spdxKey: '', isException: false, source: 'reference' } : index.find(s)) });
    expect(packageLicense(resolved, licenseInput({ license_expression: text })!, before)).toEqual(before);
  });

  it('takes the new text as declared when the expression changes', () => {
    const resolved = resolveLicenseExpression('Apache-2.0', index);
    expect(packageLicense(resolved, licenseInput({ license_expression: 'Apache-2.0' })!, before)).toEqual({
      licenseExpression: 'apache-2.0',
      licenseKeys: ['apache-2.0'],
      countedLicenseKeys: [],
      declaredLicenseExpression: 'Apache-2.0',
      unknownLicenses: [],
      resolvedFrom: [],
    });
  });

  it('licenseFields: what an import stores, with a declared text of its own', () => {
    expect(licenseFields(resolveLicenseExpression('MIT OR Bar', index), 'licenseDeclared text')).toEqual({
      licenseExpression: 'mit OR unknown-license-reference',
      licenseKeys: ['mit', 'unknown-license-reference'],
      countedLicenseKeys: ['mit'],
      declaredLicenseExpression: 'licenseDeclared text',
      unknownLicenses: ['Bar'],
      resolvedFrom: [],
    });
  });
});
