/**
 * The media types of the SBOM and VEX documents the import reads, apart from the readers: the request
 * parser and the route schemas name them without pulling the readers (and their schemas) into every
 * function's bundle. Which format each one is: docs/sbom-formats.md (the reader sniffs the document
 * whatever the type says; a type naming one format must not carry another).
 */
export const CYCLONEDX_MEDIA_TYPE = 'application/vnd.cyclonedx+json';
export const CYCLONEDX_XML_MEDIA_TYPE = 'application/vnd.cyclonedx+xml';
export const SPDX_MEDIA_TYPE = 'application/spdx+json';
export const SPDX_TAG_VALUE_MEDIA_TYPE = 'text/spdx';
export const OPENVEX_MEDIA_TYPE = 'application/openvex+json';

/** The media types the import takes as a document, in the order the API documents them. */
export const SBOM_MEDIA_TYPES = [
  CYCLONEDX_MEDIA_TYPE,
  CYCLONEDX_XML_MEDIA_TYPE,
  SPDX_MEDIA_TYPE,
  SPDX_TAG_VALUE_MEDIA_TYPE,
  OPENVEX_MEDIA_TYPE,
  'application/json',
  'application/xml',
  'text/xml',
] as const;
