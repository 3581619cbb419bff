/**
 * `node --import tsx test/support/launch-chromium.ts CACHE_DIR`: launches the npm-shipped Chromium
 * (unpacking it into CACHE_DIR if needed), renders a page, and prints what it read from it. The browser
 * tests run it from two processes at once to prove the unpacking is safe side by side.
 */
import { chromiumExecutable, launchChromium } from './chromium.ts';

const cacheDir = process.argv[2];
if (!cacheDir) throw new Error('usage: launch-chromium.ts CACHE_DIR');
const browser = await launchChromium({ cacheDir });
try {
  const page = await browser.newPage();
  await page.setContent('<main><h1>rendered</h1></main>');
  console.log(`${await page.locator('h1').textContent()} by ${browser.version()} from ${await chromiumExecutable({ cacheDir })}`);
} finally {
  await browser.close();
}
