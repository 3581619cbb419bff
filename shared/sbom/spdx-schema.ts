/**
 * The JSON Schema (draft-07) an SPDX 2.2 or 2.3 JSON document must meet before it is read: written
 * for this service from the SPDX 2.2 and 2.3 specifications' JSON serialization (every object and
 * property the specification defines, its required fields per version, its enumerations, no
 * property it does not define), as strict as the SPDX project's own JSON schemas with two errata
 * of theirs taken in: the 2.3 `referenceCategory` values are accepted in both spellings
 * (PACKAGE-MANAGER and PACKAGE_MANAGER, PERSISTENT-ID and PERSISTENT_ID), which real 2.2 and 2.3
 * producers both write, and a `$schema` property is allowed. docs/sbom-formats.md says why this is
 * the service's own text rather than a copy of the SPDX project's file.
 */

export type SpdxSchemaVersion = '2.2' | '2.3';

type Schema = Record<string, unknown>;

const string: Schema = { type: 'string' };
const strings: Schema = { type: 'array', items: string };

/** An object with exactly these properties (others refused), `required` among them. */
function object(properties: Record<string, Schema>, required: readonly string[] = []): Schema {
  return { type: 'object', properties, required, additionalProperties: false };
}

const array = (items: Schema): Schema => ({ type: 'array', items });
const oneOf = (values: readonly string[]): Schema => ({ type: 'string', enum: values });

const CHECKSUM_ALGORITHMS_2_2 = ['SHA1', 'SHA224', 'SHA256', 'SHA384', 'SHA512', 'MD2', 'MD4', 'MD5', 'MD6'];
const CHECKSUM_ALGORITHMS_2_3 = [
  ...CHECKSUM_ALGORITHMS_2_2,
  'SHA3-256',
  'SHA3-384',
  'SHA3-512',
  'BLAKE2b-256',
  'BLAKE2b-384',
  'BLAKE2b-512',
  'BLAKE3',
  'ADLER32',
];

const RELATIONSHIP_TYPES_2_2 = [
  'DESCRIBES',
  'DESCRIBED_BY',
  'CONTAINS',
  'CONTAINED_BY',
  'DEPENDS_ON',
  'DEPENDENCY_OF',
  'DEPENDENCY_MANIFEST_OF',
  'BUILD_DEPENDENCY_OF',
  'DEV_DEPENDENCY_OF',
  'OPTIONAL_DEPENDENCY_OF',
  'PROVIDED_DEPENDENCY_OF',
  'TEST_DEPENDENCY_OF',
  'RUNTIME_DEPENDENCY_OF',
  'EXAMPLE_OF',
  'GENERATES',
  'GENERATED_FROM',
  'ANCESTOR_OF',
  'DESCENDANT_OF',
  'VARIANT_OF',
  'DISTRIBUTION_ARTIFACT',
  'PATCH_FOR',
  'PATCH_APPLIED',
  'COPY_OF',
  'FILE_ADDED',
  'FILE_DELETED',
  'FILE_MODIFIED',
  'EXPANDED_FROM_ARCHIVE',
  'DYNAMIC_LINK',
  'STATIC_LINK',
  'DATA_FILE_OF',
  'TEST_CASE_OF',
  'BUILD_TOOL_OF',
  'DEV_TOOL_OF',
  'TEST_OF',
  'TEST_TOOL_OF',
  'DOCUMENTATION_OF',
  'OPTIONAL_COMPONENT_OF',
  'METAFILE_OF',
  'PACKAGE_OF',
  'AMENDS',
  'PREREQUISITE_FOR',
  'HAS_PREREQUISITE',
  'OTHER',
];
const RELATIONSHIP_TYPES_2_3 = [...RELATIONSHIP_TYPES_2_2, 'REQUIREMENT_DESCRIPTION_FOR', 'SPECIFICATION_FOR'];

const REFERENCE_CATEGORIES = ['SECURITY', 'PACKAGE-MANAGER', 'PACKAGE_MANAGER', 'PERSISTENT-ID', 'PERSISTENT_ID', 'OTHER'];
const FILE_TYPES = ['SOURCE', 'BINARY', 'ARCHIVE', 'APPLICATION', 'AUDIO', 'IMAGE', 'TEXT', 'VIDEO', 'DOCUMENTATION', 'SPDX', 'OTHER'];
const PACKAGE_PURPOSES = ['APPLICATION', 'FRAMEWORK', 'LIBRARY', 'CONTAINER', 'OPERATING_SYSTEM', 'DEVICE', 'FIRMWARE', 'SOURCE', 'ARCHIVE', 'FILE', 'INSTALL', 'OTHER'];

/** The schema for one version, built fresh (Ajv compiles it once per process: read-sbom.ts). */
export function spdxSchema(version: SpdxSchemaVersion): Schema {
  const v23 = version === '2.3';
  const checksum = object({ algorithm: oneOf(v23 ? CHECKSUM_ALGORITHMS_2_3 : CHECKSUM_ALGORITHMS_2_2), checksumValue: string }, ['algorithm', 'checksumValue']);
  const annotation = object(
    { annotationDate: string, annotationType: oneOf(['REVIEW', 'OTHER']), annotator: string, comment: string },
    ['annotationDate', 'annotationType', 'annotator', 'comment'],
  );
  const annotations = array(annotation);
  const pointer = object({ reference: string, offset: { type: 'integer' }, lineNumber: { type: 'integer' } }, ['reference']);

  const pkg = object(
    {
      SPDXID: string,
      name: string,
      versionInfo: string,
      packageFileName: string,
      supplier: string,
      originator: string,
      downloadLocation: string,
      filesAnalyzed: { type: 'boolean' },
      packageVerificationCode: object({ packageVerificationCodeValue: string, packageVerificationCodeExcludedFiles: strings }, ['packageVerificationCodeValue']),
      checksums: array(checksum),
      homepage: string,
      sourceInfo: string,
      licenseConcluded: string,
      licenseInfoFromFiles: strings,
      licenseDeclared: string,
      licenseComments: string,
      copyrightText: string,
      summary: string,
      description: string,
      comment: string,
      externalRefs: array(
        object({ referenceCategory: oneOf(REFERENCE_CATEGORIES), referenceType: string, referenceLocator: string, comment: string }, [
          'referenceCategory',
          'referenceType',
          'referenceLocator',
        ]),
      ),
      attributionTexts: strings,
      hasFiles: strings,
      annotations,
      ...(v23 ? { primaryPackagePurpose: oneOf(PACKAGE_PURPOSES), releaseDate: string, builtDate: string, validUntilDate: string } : {}),
    },
    // SPDX 2.3 made the license and copyright fields optional; 2.2 requires them (NOASSERTION is a value).
    v23 ? ['SPDXID', 'name', 'downloadLocation'] : ['SPDXID', 'name', 'downloadLocation', 'licenseConcluded', 'licenseDeclared', 'copyrightText'],
  );

  const file = object(
    {
      SPDXID: string,
      fileName: string,
      fileTypes: array(oneOf(FILE_TYPES)),
      // A file's SHA1 is mandatory: at least one checksum.
      checksums: { ...array(checksum), minItems: 1 },
      licenseConcluded: string,
      licenseInfoInFiles: v23 ? strings : { ...strings, minItems: 1 },
      licenseComments: string,
      copyrightText: string,
      comment: string,
      noticeText: string,
      fileContributors: strings,
      attributionTexts: strings,
      fileDependencies: strings,
      artifactOfs: array({ type: 'object' }),
      annotations,
    },
    v23 ? ['SPDXID', 'fileName', 'checksums'] : ['SPDXID', 'fileName', 'checksums', 'licenseConcluded', 'licenseInfoInFiles', 'copyrightText'],
  );

  const snippet = object(
    {
      SPDXID: string,
      snippetFromFile: string,
      ranges: { ...array(object({ startPointer: pointer, endPointer: pointer }, ['startPointer', 'endPointer'])), minItems: 1 },
      licenseConcluded: string,
      licenseInfoInSnippets: strings,
      licenseComments: string,
      copyrightText: string,
      comment: string,
      name: string,
      attributionTexts: strings,
      annotations,
    },
    v23 ? ['SPDXID', 'name', 'ranges', 'snippetFromFile'] : ['SPDXID', 'name', 'ranges', 'snippetFromFile', 'licenseConcluded', 'copyrightText'],
  );

  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `urn:compliance-service:spdx-${version}-json`,
    title: `SPDX ${version} JSON document`,
    ...object(
      {
        $schema: string,
        spdxVersion: { type: 'string', const: `SPDX-${version}` },
        dataLicense: string,
        SPDXID: string,
        name: string,
        documentNamespace: string,
        externalDocumentRefs: array(object({ externalDocumentId: string, spdxDocument: string, checksum }, ['externalDocumentId', 'spdxDocument', 'checksum'])),
        creationInfo: object({ created: string, creators: { type: 'array', items: string, minItems: 1 }, licenseListVersion: string, comment: string }, ['created', 'creators']),
        comment: string,
        documentDescribes: strings,
        packages: array(pkg),
        files: array(file),
        snippets: array(snippet),
        relationships: array(
          object(
            { spdxElementId: string, relationshipType: oneOf(v23 ? RELATIONSHIP_TYPES_2_3 : RELATIONSHIP_TYPES_2_2), relatedSpdxElement: string, comment: string },
            ['spdxElementId', 'relationshipType', 'relatedSpdxElement'],
          ),
        ),
        hasExtractedLicensingInfos: array(
          object(
            {
              licenseId: string,
              extractedText: string,
              name: string,
              comment: string,
              seeAlsos: strings,
              crossRefs: array(
                object(
                  {
                    url: string,
                    isLive: { type: 'boolean' },
                    isValid: { type: 'boolean' },
                    isWayBackLink: { type: 'boolean' },
                    match: string,
                    order: { type: 'integer' },
                    timestamp: string,
                  },
                  ['url'],
                ),
              ),
            },
            ['licenseId', 'extractedText'],
          ),
        ),
        annotations,
        revieweds: array(object({ reviewDate: string, reviewer: string, comment: string }, ['reviewDate'])),
      },
      // The document namespace is mandatory in both versions' specification; the 2.3 schema says so.
      ['spdxVersion', 'dataLicense', 'SPDXID', 'name', 'creationInfo', ...(v23 ? ['documentNamespace'] : [])],
    ),
  };
}
