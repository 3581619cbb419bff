/**
 * Loads the Lambda handlers of shared/functions.ts in-process, from exactly the entry files Lambda runs.
 * A module exports `handler` (its Lambda entry, composed from the environment on its first call) and,
 * when it needs parts, `makeHandler(deps)`, through which the local stack composes it from its own.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';
import type { LocalDependencies } from './composition.ts';

export type Handler = (event: unknown, context: unknown) => Promise<unknown>;

interface FunctionModule {
  readonly handler?: unknown;
  readonly makeHandler?: unknown;
}

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const modules = new Map<FunctionName, Promise<FunctionModule>>();

function importEntry(name: FunctionName): Promise<FunctionModule> {
  let module = modules.get(name);
  if (!module) {
    module = import(pathToFileURL(resolve(root, FUNCTIONS[name].entry)).href) as Promise<FunctionModule>;
    modules.set(name, module);
  }
  return module;
}

/** A function as Lambda runs it: its module's `handler`, composed from process.env (for tests that configure the environment as Lambda's). */
export async function loadHandler(name: FunctionName): Promise<Handler> {
  const module = await importEntry(name);
  if (typeof module.handler !== 'function') throw new Error(`${FUNCTIONS[name].entry} exports no handler`);
  return module.handler as Handler;
}

export interface LocalFunctions {
  /** The function made from the stack's parts, once; a function with no parts (not-found) is its handler. */
  handler(name: FunctionName): Promise<Handler>;
}

/** The functions of one local stack, each made by its module's makeHandler from `deps`. */
export function localFunctions(deps: LocalDependencies): LocalFunctions {
  const made = new Map<FunctionName, Promise<Handler>>();
  const make = async (name: FunctionName): Promise<Handler> => {
    const module = await importEntry(name);
    // Each makeHandler takes the parts it names from the whole set (a Pick of it), which this cannot check.
    if (typeof module.makeHandler === 'function') return (module.makeHandler as (parts: LocalDependencies) => Handler)(deps);
    return loadHandler(name);
  };
  return {
    handler(name) {
      let handler = made.get(name);
      if (!handler) {
        handler = make(name);
        made.set(name, handler);
      }
      return handler;
    },
  };
}
