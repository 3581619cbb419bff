/** Construct ids from the catalog's kebab-case and snake_case names: 'api-root' and 'api_root' give 'ApiRoot'. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
