/** Loads the Lambda handlers of shared/functions.ts in-process, exactly the entry files Lambda runs. */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const loaded = new Map<string, Promise<(event: unknown, context: unknown) => Promise<unknown>>>();

export function loadHandler(name: FunctionName): Promise<(event: unknown, context: unknown) => Promise<unknown>> {
  let handler = loaded.get(name);
  if (!handler) {
    const url = pathToFileURL(resolve(root, FUNCTIONS[name].entry)).href;
    handler = import(url).then((module: { handler?: unknown }) => {
      if (typeof module.handler !== 'function') throw new Error(`${FUNCTIONS[name].entry} exports no handler`);
      return module.handler as (event: unknown, context: unknown) => Promise<unknown>;
    });
    loaded.set(name, handler);
  }
  return handler;
}
