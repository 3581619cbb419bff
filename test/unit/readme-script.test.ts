/** How README.md's examples become one script (test/support/readme-script.ts), on small READMEs. */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { fencedBlocks, readmeScript, shellCommands } from '../support/readme-script.ts';

const fence = '```';
const md = (...lines: string[]) => lines.join('\n');
const ports = { api: 12345, receiver: 12346 };

describe('README examples as a script', () => {
  it('finds fenced blocks with their language, flags and README line', () => {
    const blocks = fencedBlocks(md('# Title', `${fence}sh`, 'echo hi', fence, '', `${fence}sh no-test`, 'npm ci', fence));
    expect(blocks).toEqual([
      { lang: 'sh', flags: [], line: 3, body: ['echo hi'] },
      { lang: 'sh', flags: ['no-test'], line: 7, body: ['npm ci'] },
    ]);
  });

  it('groups continuations, multi-line quotes and heredocs into one command, with the status its comment expects', () => {
    const [block] = fencedBlocks(
      md(
        `${fence}sh`,
        "curl -s -X POST $API/x/ \\",
        "     -d '{\"a\": 1,",
        "          \"b\": 2}'",
        '# 201 {"uuid": "…"}',
        '#     "more": 1}',
        "cat > f.json <<'JSON'",
        '{"not": "a command"}',
        '# 404 not a comment either',
        'JSON',
        'curl -i http://127.0.0.1:8000/api/v2/   # 401',
        'X=$(curl -s "$API/#/y")',
        '# the next comment is no status',
        '# 200',
        fence,
      ),
    );
    const commands = shellCommands(block!);
    expect(commands.map((c) => [c.line, c.lines.length, c.expect])).toEqual([
      [2, 3, '201'],
      [7, 4, undefined],
      [11, 1, '401'],
      [12, 1, undefined],
    ]);
  });

  it('puts the expected status on the curl, the README line before each command, and the test ports in place of 8000 and 8001', () => {
    const { script, executed, skipped } = readmeScript(
      md(
        `${fence}sh no-test`,
        'npm ci && npm start',
        fence,
        `${fence}mermaid`,
        'flowchart LR',
        fence,
        `${fence}sh`,
        'KEY=$(curl -s http://127.0.0.1:8000/api/v2/ | field uuid)',
        '# 201 {}',
        "node -e 'listen(8001)'",
        fence,
      ),
      ports,
    );
    expect(executed.map((b) => b.line)).toEqual([8]);
    expect(skipped.map((b) => b.body[0])).toEqual(['npm ci && npm start']);
    expect(script).toContain('README_LINE=8\nKEY=$(EXPECT_STATUS=201 curl -s http://127.0.0.1:12345/api/v2/ | field uuid)');
    expect(script).toContain("README_LINE=10\nnode -e 'listen(12346)'");
    expect(script).not.toContain('npm ci');
  });

  it('refuses a block it would not run unless it is marked no-test, and commands that must never run in a test', () => {
    expect(() => readmeScript(md(`${fence}json`, '{}', fence), ports)).toThrow(/README.md:2: a `json` block is not executed/);
    expect(() => readmeScript(md(`${fence}js`, 'x()', fence), ports)).toThrow(/mark it no-test/);
    expect(() => readmeScript(md(`${fence}sh`, 'npm ci && npm start', fence), ports)).toThrow(/README.md:2: `npm ci` cannot run in a test/);
    expect(() => readmeScript(md(`${fence}sh`, 'npx cdk deploy', fence), ports)).toThrow(/`cdk deploy` cannot run/);
    expect(() => readmeScript(md(`${fence}sh`, 'echo a; echo b   # 200', fence), ports)).toThrow(/needs exactly one curl/);
    expect(() => readmeScript(md(`${fence}sh`, "echo 'open", fence), ports)).toThrow(/never closed/);
  });
});

describe('the script run by bash', () => {
  it('fails on a curl whose answer is not the status its comment states, or a 4xx nobody stated', async () => {
    const server = createServer((req, res) => res.writeHead(req.url === '/' ? 200 : 404).end('{}'));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as { port: number }).port;
    const run = (...lines: string[]) => {
      const { script } = readmeScript(md(`${fence}sh`, ...lines, fence), { api: port, receiver: port });
      return new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn('bash', ['-c', script]);
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.once('close', (code) => done({ code, stderr }));
      });
    };
    try {
      expect((await run('curl -s http://127.0.0.1:8000/   # 200', 'curl -s -o /dev/null http://127.0.0.1:8000/x', '# 404')).code).toBe(0);
      const wrong = await run('echo first', 'curl -s http://127.0.0.1:8000/x   # 200');
      expect(wrong.code).not.toBe(0);
      expect(wrong.stderr).toContain('README.md:3: expected HTTP 200, got 404');
      const unstated = await run('X=$(curl -s http://127.0.0.1:8000/x)');
      expect(unstated.code).not.toBe(0);
      expect(unstated.stderr).toContain('README.md:2: HTTP 404, which the example does not say it expects');
      expect((await run('false', 'echo never')).stderr).toContain('README.md:2: this example failed (exit 1)');
    } finally {
      server.close();
    }
  });
});
