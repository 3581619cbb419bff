/** ajv-formats-draft2019 ships no types: the one call the CycloneDX validation makes of it. */
declare module 'ajv-formats-draft2019' {
  import type { Ajv } from 'ajv';
  export default function addFormats2019(ajv: Ajv, options?: { formats?: string[] }): Ajv;
}
