/** A VEX's versionless purl names every version of the package the product holds; a versioned one, that version. */
import { describe, expect, it } from 'vitest';
import { isVersionless, versionlessCovers } from '../../shared/domain/purl-match.ts';

describe('versionless purls in a VEX', () => {
  it.each([
    ['pkg:rpm/suse/glibc', 'pkg:rpm/suse/glibc@2.31-150300.83.1?arch=x86_64&distro=sles-15.5', true],
    ['pkg:rpm/suse/glibc?arch=x86_64', 'pkg:rpm/suse/glibc@2.31-150300.83.1?arch=x86_64&distro=sles-15.5', true],
    ['pkg:rpm/suse/glibc?arch=aarch64', 'pkg:rpm/suse/glibc@2.31-150300.83.1?arch=x86_64', false],
    ['pkg:rpm/suse/glibc', 'pkg:rpm/suse/glibc-devel@2.31', false],
    ['pkg:npm/%40types/node', 'pkg:npm/%40types/node@20.11.30', true],
    ['pkg:npm/%40types/node', 'pkg:npm/%40types/nodes@20.11.30', false],
    ['pkg:golang/github.com/foo/bar#cmd/x', 'pkg:golang/github.com/foo/bar@v1.2.0#cmd/x', true],
    ['pkg:golang/github.com/foo/bar#cmd/x', 'pkg:golang/github.com/foo/bar@v1.2.0#cmd/y', false],
    // A versioned reference is exact: never covers another version.
    ['pkg:npm/express@4.19.2', 'pkg:npm/express@4.19.3', false],
  ])('%s names %s: %s', (reference, candidate, covers) => {
    expect(versionlessCovers(reference, candidate)).toBe(covers);
  });

  it('tells versionless purls from versioned ones', () => {
    expect(isVersionless('pkg:rpm/suse/glibc?arch=x86_64')).toBe(true);
    expect(isVersionless('pkg:npm/%40types/node')).toBe(true);
    expect(isVersionless('pkg:npm/%40types/node@20.11.30')).toBe(false);
    expect(isVersionless('urn:cdx:3e671687-395b-41f5-a30f-a58921a69b79/1#x')).toBe(false);
  });
});
