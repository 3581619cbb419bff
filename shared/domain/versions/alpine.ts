/**
 * Alpine's version order, apk-tools' own (src/version.c), which no maintained JavaScript library
 * carries: digits{.digits}[letter]{_suffix[number]}[-r<revision>], compared token by token. A
 * component after a '.' with leading zeros compares as a fraction ("1.01" < "1.1"); pre-release
 * suffixes (_alpha, _beta, _pre, _rc) sort before the release and post-release ones (_cvs, _svn, _git,
 * _hg, _p) after it. Checked against orderings apk produced (test/fixtures/osv/version-order).
 */

const enum Token {
  Invalid = -1,
  DigitOrZero = 0,
  Digit = 1,
  Letter = 2,
  Suffix = 3,
  SuffixNo = 4,
  RevisionNo = 5,
  End = 6,
}

const PRE_SUFFIXES = ['alpha', 'beta', 'pre', 'rc'];
const POST_SUFFIXES = ['cvs', 'svn', 'git', 'hg', 'p'];

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isLower = (c: string | undefined) => c !== undefined && c >= 'a' && c <= 'z';

class Cursor {
  constructor(
    readonly text: string,
    public at = 0,
    public type: Token = Token.Digit,
  ) {}

  /** What follows the token just read: its type, past any separator. */
  private next(): void {
    let n: Token = Token.Invalid;
    const c = this.text[this.at];
    if (c === undefined) n = Token.End;
    else if ((this.type === Token.Digit || this.type === Token.DigitOrZero) && isLower(c)) n = Token.Letter;
    else if (this.type === Token.Letter && isDigit(c)) n = Token.Digit;
    else if (this.type === Token.Suffix && isDigit(c)) n = Token.SuffixNo;
    else {
      if (c === '.') n = Token.DigitOrZero;
      else if (c === '_') n = Token.Suffix;
      else if (c === '-' && this.text[this.at + 1] === 'r') {
        n = Token.RevisionNo;
        this.at++;
      }
      this.at++;
    }
    if (n < this.type && !((n === Token.DigitOrZero && this.type === Token.Digit) || (n === Token.Suffix && this.type === Token.SuffixNo) || (n === Token.Digit && this.type === Token.Letter))) {
      n = Token.Invalid;
    }
    this.type = n;
  }

  /** The value of the token at the cursor (of this.type), moving past it. */
  token(): bigint {
    let value = 0n;
    let i = this.at;
    let nextType: Token = Token.Invalid;
    if (i >= this.text.length) {
      this.type = Token.End;
      return 0n;
    }
    switch (this.type) {
      case Token.DigitOrZero:
        // After a '.', leading zeros make a fraction: their count, negated, then the digits as a number.
        if (this.text[i] === '0') {
          while (this.text[i] === '0') i++;
          nextType = Token.Digit;
          value = BigInt(this.at - i);
        } else {
          while (isDigit(this.text[i])) value = value * 10n + BigInt(this.text.charCodeAt(i++) - 48);
        }
        break;
      case Token.Digit:
      case Token.SuffixNo:
      case Token.RevisionNo:
        while (isDigit(this.text[i])) value = value * 10n + BigInt(this.text.charCodeAt(i++) - 48);
        break;
      case Token.Letter:
        value = BigInt(this.text.charCodeAt(i++));
        break;
      case Token.Suffix: {
        const rest = this.text.slice(i);
        const pre = PRE_SUFFIXES.findIndex((suffix) => rest.startsWith(suffix));
        if (pre !== -1) {
          value = BigInt(pre - PRE_SUFFIXES.length);
          i += PRE_SUFFIXES[pre]!.length;
          break;
        }
        const post = POST_SUFFIXES.findIndex((suffix) => rest.startsWith(suffix));
        if (post !== -1) {
          value = BigInt(post);
          i += POST_SUFFIXES[post]!.length;
          break;
        }
        this.type = Token.Invalid;
        return -1n;
      }
      default:
        this.type = Token.Invalid;
        return -1n;
    }
    this.at = i;
    if (this.at >= this.text.length) this.type = Token.End;
    else if (nextType !== Token.Invalid) this.type = nextType;
    else this.next();
    return value;
  }
}

/**
 * Whether apk takes the version as valid (apk_version_validate), and more strictly, a number after
 * every '.' (apk 2 let "0.r1" by, and orders it apart from apk 3).
 */
export function isAlpineVersion(text: string): boolean {
  if (!isDigit(text[0])) return false;
  const cursor = new Cursor(text);
  while (cursor.type !== Token.End && cursor.type !== Token.Invalid) {
    const { at, type } = cursor;
    cursor.token();
    if (type === Token.DigitOrZero && cursor.at === at) return false;
  }
  return cursor.type === Token.End;
}

export function parseAlpineVersion(text: string): string | undefined {
  const version = text.trim();
  return isAlpineVersion(version) ? version : undefined;
}

/** apk's comparison (apk_version_compare_blob); it orders invalid versions too, as apk does. */
export function compareAlpineVersions(a: string, b: string): number {
  const x = new Cursor(a);
  const y = new Cursor(b);
  let av = 0n;
  let bv = 0n;
  while (x.type === y.type && x.type !== Token.End && x.type !== Token.Invalid && av === bv) {
    av = x.token();
    bv = y.token();
  }
  if (av < bv) return -1;
  if (av > bv) return 1;
  if (x.type === y.type) return 0;
  // Equal so far: the longer one is newer, unless what it goes on with is a pre-release suffix.
  if (x.type === Token.Suffix && x.token() < 0n) return -1;
  if (y.type === Token.Suffix && y.token() < 0n) return 1;
  if (x.type > y.type) return -1;
  if (y.type > x.type) return 1;
  return 0;
}
