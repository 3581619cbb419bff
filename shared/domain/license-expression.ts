/**
 * License expressions over license keys: `mit OR (apache-2.0 AND gpl-2.0 WITH classpath-exception-2.0)`.
 * Operators AND, OR and WITH (any case) and parentheses; AND binds tighter than OR. Pure: parsing and
 * the keys an expression names, so the caller can check them against the dataspace's licenses.
 */

export type LicenseExpression =
  | { readonly kind: 'license'; readonly key: string; readonly exception?: string }
  | { readonly kind: 'and' | 'or'; readonly operands: readonly LicenseExpression[] };

export type ParsedExpression =
  | { readonly ok: true; readonly expression: LicenseExpression; readonly normalized: string; readonly keys: string[] }
  | { readonly ok: false; readonly error: string };

/** A key, an SPDX id, or an SPDX `DocumentRef-…:LicenseRef-…` reference. */
const KEY = /^[A-Za-z0-9][A-Za-z0-9.+_:-]*$/;

function tokenize(text: string): string[] | string {
  const tokens: string[] = [];
  for (const raw of text.replace(/([()])/g, ' $1 ').split(/\s+/)) {
    if (raw === '') continue;
    const upper = raw.toUpperCase();
    if (raw === '(' || raw === ')' || upper === 'AND' || upper === 'OR' || upper === 'WITH') tokens.push(raw === '(' || raw === ')' ? raw : upper);
    else if (KEY.test(raw)) tokens.push(raw);
    else return `"${raw}" is not a license key.`;
  }
  return tokens;
}

const isOperator = (token: string | undefined) => token === 'AND' || token === 'OR' || token === 'WITH';

export function parseLicenseExpression(text: string): ParsedExpression {
  const tokens = tokenize(text);
  if (typeof tokens === 'string') return { ok: false, error: tokens };
  if (tokens.length === 0) return { ok: false, error: 'The expression is empty.' };
  let position = 0;
  const peek = () => tokens[position];
  const fail = (message: string): never => {
    throw new SyntaxError(message);
  };

  const parseOr = (): LicenseExpression => {
    const operands = [parseAnd()];
    while (peek() === 'OR') {
      position++;
      operands.push(parseAnd());
    }
    return operands.length === 1 ? operands[0]! : { kind: 'or', operands };
  };
  const parseAnd = (): LicenseExpression => {
    const operands = [parseFactor()];
    while (peek() === 'AND') {
      position++;
      operands.push(parseFactor());
    }
    return operands.length === 1 ? operands[0]! : { kind: 'and', operands };
  };
  const parseFactor = (): LicenseExpression => {
    const token = peek();
    if (token === undefined) return fail('The expression ends too early.');
    if (token === '(') {
      position++;
      const inner = parseOr();
      if (peek() !== ')') fail('A parenthesis is not closed.');
      position++;
      return inner;
    }
    if (token === ')' || isOperator(token)) return fail(`Unexpected "${token}".`);
    position++;
    if (peek() === 'WITH') {
      position++;
      const exception = peek();
      if (exception === undefined || exception === '(' || exception === ')' || isOperator(exception)) {
        return fail('WITH must be followed by an exception key.');
      }
      position++;
      return { kind: 'license', key: token, exception };
    }
    return { kind: 'license', key: token };
  };

  try {
    const expression = parseOr();
    if (position < tokens.length) fail(`Unexpected "${tokens[position]}".`);
    return { ok: true, expression, normalized: render(expression, true), keys: [...new Set(licenseKeys(expression))] };
  } catch (error) {
    if (error instanceof SyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

/** Every key the expression names, exceptions included, in order of appearance. */
export function licenseKeys(expression: LicenseExpression): string[] {
  if (expression.kind === 'license') return expression.exception ? [expression.key, expression.exception] : [expression.key];
  return expression.operands.flatMap(licenseKeys);
}

function render(expression: LicenseExpression, top: boolean): string {
  if (expression.kind === 'license') return expression.exception ? `${expression.key} WITH ${expression.exception}` : expression.key;
  const text = expression.operands.map((operand) => render(operand, false)).join(expression.kind === 'and' ? ' AND ' : ' OR ');
  return top ? text : `(${text})`;
}
