/**
 * README.md's shell examples as one bash script, so a test can run them in order, the way a new user
 * pastes them into one terminal (variables carry from block to block).
 *
 * Conventions the README follows (and this module enforces):
 * - Every fenced block is executed unless its info string says `no-test` (```sh no-test); `mermaid`
 *   diagrams are not examples. Only `sh` blocks run; any other executed-looking block is refused, so a
 *   JSON or JS example must be written by a heredoc inside an `sh` block (and so is run too).
 * - A curl command's expected status is the comment right after it (`# 201 {...}`), or a trailing
 *   comment on its last line (`... # 401`). A curl with no stated status must answer below 400.
 * - The ports 8000 (the API) and 8001 (the webhook receiver) are replaced by the test's own ports.
 */

export interface FencedBlock {
  /** The language of the info string (`sh`, `json`, ...). */
  readonly lang: string;
  /** The words after it (`no-test`). */
  readonly flags: readonly string[];
  /** README line (1-based) of the block's first body line. */
  readonly line: number;
  readonly body: readonly string[];
}

export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j]!)) body.push(lines[j++]!);
    if (j === lines.length) throw new Error(`README.md:${i + 1}: a fenced block is never closed`);
    blocks.push({ lang: open[1]!, flags: open[2]!.split(/\s+/).filter(Boolean), line: i + 2, body });
    i = j;
  }
  return blocks;
}

/** One shell command of a block: its README line, its source lines, the HTTP status its comment expects. */
export interface ShellCommand {
  readonly line: number;
  readonly lines: string[];
  expect?: string;
  /** True once a comment line has followed it (later comments are not its expectation). */
  commented?: boolean;
}

const STATUS_COMMENT = /^#\s*(\d{3})\b/;

/**
 * Splits a block into commands: a command goes on over backslash continuations, open quotes and
 * heredoc bodies. Comment lines between commands are kept with the command before them.
 */
export function shellCommands(block: FencedBlock): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let current: ShellCommand | undefined;
  let single = false;
  let double = false;
  let continued = false;
  let heredoc: { word: string; strip: boolean } | undefined;
  for (const [index, line] of block.body.entries()) {
    const readmeLine = block.line + index;
    if (heredoc) {
      current!.lines.push(line);
      if ((heredoc.strip ? line.replace(/^\t+/, '') : line) === heredoc.word) heredoc = undefined;
      continue;
    }
    const atStart = !single && !double && !continued;
    if (atStart && line.trim() === '') continue;
    if (atStart && /^\s*#/.test(line)) {
      const status = STATUS_COMMENT.exec(line.trim());
      if (current && status && !current.commented && current.expect === undefined) current.expect = status[1];
      if (current) current.commented = true;
      continue;
    }
    if (atStart) {
      current = { line: readmeLine, lines: [] };
      commands.push(current);
    }
    current!.lines.push(line);
    // Scan the line: quotes, a trailing comment, a heredoc operator, a final backslash.
    let code = '';
    let pendingHeredoc: { word: string; strip: boolean } | undefined;
    for (let k = 0; k < line.length; k++) {
      const c = line[k]!;
      if (single) {
        if (c === "'") single = false;
        code += c;
        continue;
      }
      if (c === '\\' && k + 1 < line.length) {
        code += c + line[++k];
        continue;
      }
      if (double) {
        if (c === '"') double = false;
        code += c;
        continue;
      }
      if (c === "'") single = true;
      else if (c === '"') double = true;
      else if (c === '#' && (k === 0 || /\s/.test(line[k - 1]!))) {
        const status = STATUS_COMMENT.exec(line.slice(k));
        if (status && current!.expect === undefined) current!.expect = status[1];
        break;
      } else if (c === '<' && line[k + 1] === '<' && line[k + 2] !== '<') {
        const operator = /^<<(-?)\s*(['"]?)([A-Za-z_]\w*)\2/.exec(line.slice(k));
        if (operator) {
          pendingHeredoc = { word: operator[3]!, strip: operator[1] === '-' };
          code += operator[0];
          k += operator[0].length - 1;
          continue;
        }
      }
      code += c;
    }
    continued = !single && !double && /\\$/.test(code);
    if (pendingHeredoc) heredoc = pendingHeredoc;
  }
  if (single || double || heredoc) throw new Error(`README.md:${block.line}: a quote or heredoc of this block is never closed`);
  return commands;
}

/** Words of a command that name a tool, outside quotes (enough to find `curl` and `npm ci`). */
function curlCount(command: ShellCommand): number {
  return command.lines.join('\n').match(/(^|[\s;|&(`])curl\s/g)?.length ?? 0;
}

/** Commands no example may run in a test: they would change the checkout's shared install or recurse. */
const FORBIDDEN = [/\bnpm\s+(ci|install|i|test)\b/, /\bcdk\s+(deploy|bootstrap|destroy)\b/, /\brm\s+-r/];

/** bash for the prelude: the README line being run, and curl checked against the stated status. */
const PRELUDE = [
  'set -euo pipefail',
  'README_LINE=0',
  `trap 'rc=$?; echo "README.md:$README_LINE: this example failed (exit $rc)" >&2' ERR`,
  'curl() {',
  '  local headers status rc=0',
  '  headers=$(mktemp)',
  '  command curl -D "$headers" "$@" || rc=$?',
  `  status=$(awk '/^HTTP/{code=$2} END{print code}' "$headers")`,
  '  rm -f "$headers"',
  '  if [ "$rc" -ne 0 ]; then return "$rc"; fi',
  '  if [ -n "${EXPECT_STATUS:-}" ]; then',
  '    if [ "$status" != "$EXPECT_STATUS" ]; then',
  '      echo "README.md:$README_LINE: expected HTTP $EXPECT_STATUS, got ${status:-no answer}" >&2',
  '      return 1',
  '    fi',
  '  elif [ -n "$status" ] && [ "$status" -ge 400 ]; then',
  '    echo "README.md:$README_LINE: HTTP $status, which the example does not say it expects" >&2',
  '    return 1',
  '  fi',
  '}',
].join('\n');

export interface ReadmeScript {
  readonly script: string;
  /** The blocks that run, and those marked no-test (by their first line). */
  readonly executed: readonly FencedBlock[];
  readonly skipped: readonly FencedBlock[];
}

/** The README's runnable examples as one bash script, with 8000 and 8001 replaced by `ports`. */
export function readmeScript(markdown: string, ports: { api: number; receiver: number }): ReadmeScript {
  const executed: FencedBlock[] = [];
  const skipped: FencedBlock[] = [];
  const parts = [PRELUDE];
  for (const block of fencedBlocks(markdown)) {
    if (block.lang === 'mermaid') continue;
    if (block.flags.includes('no-test')) {
      skipped.push(block);
      continue;
    }
    if (block.lang !== 'sh') {
      throw new Error(
        `README.md:${block.line}: a \`${block.lang || 'plain'}\` block is not executed: write it from an sh block (a heredoc), or mark it no-test`,
      );
    }
    executed.push(block);
    parts.push(`\n# ---- README.md line ${block.line}`);
    for (const command of shellCommands(block)) {
      const text = command.lines.join('\n');
      for (const forbidden of FORBIDDEN) {
        if (forbidden.test(text)) throw new Error(`README.md:${command.line}: \`${forbidden.exec(text)![0]}\` cannot run in a test; mark its block no-test`);
      }
      let source = text;
      if (command.expect !== undefined) {
        if (curlCount(command) !== 1) {
          throw new Error(`README.md:${command.line}: an expected status (${command.expect}) needs exactly one curl in its command`);
        }
        source = source.replace(/(^|[\s;|&(`])curl\s/, `$1EXPECT_STATUS=${command.expect} curl `);
      }
      parts.push(`README_LINE=${command.line}`, source);
    }
  }
  const script = parts
    .join('\n')
    .replace(/\b8000\b/g, String(ports.api))
    .replace(/\b8001\b/g, String(ports.receiver));
  return { script: `${script}\n`, executed, skipped };
}
