// What the console drivers share: Chromium started by puppeteer-core (from the web tools that
// tools/install-web-tools.sh installs), the console's page opened, a method's form, a call sent.
//
//   node DRIVER URL SCREENSHOT_DIR [--chromium=PATH] [--timeout-ms=N]

import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";

const toolsDir = process.env.TERN_TOOLS_DIR || join(homedir(), ".cache", "tern-tools");
const require = createRequire(join(toolsDir, "web", "package.json"));

function flag(args, name, defaultValue) {
  const prefix = `--${name}=`;
  const found = args.filter((a) => a.startsWith(prefix)).pop();
  return found === undefined ? defaultValue : found.substring(prefix.length);
}

// Reads the command line, starts Chromium and opens the console at URL; exits with 2 on a bad
// command line. Returns {url, shots, browser, page}; the page is ready (or shows its error).
export async function openConsole(driver) {
  const [url, shots, ...rest] = process.argv.slice(2);
  if (!url || !shots) {
    process.stderr.write(`usage: node ${driver} URL SCREENSHOT_DIR [--chromium=PATH] [--timeout-ms=N]\n`);
    process.exit(2);
  }
  const timeout = Number(flag(rest, "timeout-ms", "20000"));
  const puppeteer = require("puppeteer-core");
  const browserArgs = ["--disable-dev-shm-usage", "--disable-gpu"];
  if (process.getuid && process.getuid() === 0) browserArgs.push("--no-sandbox");
  const browser = await puppeteer.launch({
    executablePath: flag(rest, "chromium", "/usr/bin/chromium"),
    headless: true,
    args: browserArgs,
    defaultViewport: { width: 1200, height: 900 },
  });
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  page.on("console", (m) => process.stderr.write(`console: ${m.text()}\n`));
  page.on("pageerror", (e) => process.stderr.write(`console: page error: ${e}\n`));
  await page.goto(url, { timeout });
  await page.waitForSelector('body[data-state="ready"], body[data-state="error"]');
  return { url, shots, browser, page };
}

// Opens the call form of `method` (package.Service/Method) from the services view.
export async function openMethod(page, url, method) {
  await page.goto(url.split("#")[0] + "#services");
  await page.click(`.method[data-method="${method}"] button`);
  await page.waitForSelector(`#call-panel[data-method="${method}"]`);
}

// Sends the form's call and waits for its answer; returns the status line.
export async function send(page) {
  await page.click("#send");
  await page.waitForSelector('#call-result[data-state="done"]');
  return page.$eval("#call-status", (e) => e.textContent);
}

// Runs `steps(out)` and prints `out` as one JSON line (with `failure` if a step threw), then
// closes the browser.
export async function report(browser, steps) {
  const out = {};
  try {
    await steps(out);
  } catch (e) {
    out.failure = String(e);
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
