#!/usr/bin/env node
// Builds the route guide page and opens it in headless Chromium: the browser half of the examples'
// RouteGuideBrowserTest, also runnable by hand.
//
//   node web-client.mjs build OUT_DIR
//       Generates the route guide's TypeScript from route_guide.proto (buf generate with
//       protoc-gen-es), bundles routeguide.ts with esbuild, and writes the page to OUT_DIR/site
//       (index.html, routeguide.js): serve that folder from any static file server.
//   node web-client.mjs open URL [--chromium=PATH] [--timeout-ms=N]
//       Opens URL (the page, with ?server=http://HOST:PORT) in headless Chromium (default
//       /usr/bin/chromium), waits until the page has finished its calls, and prints its results
//       (one line of JSON per transport) on standard output; the browser's console (CORS errors
//       among it) goes to standard error, each line starting with "console: ". Exits 1 if the page
//       does not finish within the timeout (default 30000 ms).
//
// The npm packages come from tools/install-web-tools.sh's cache, $TERN_TOOLS_DIR/web (by default
// ~/.cache/tern-tools/web), not from a node_modules folder in the repository.

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const protoRoot = resolve(here, "../../main/proto");
const toolsDir = process.env.TERN_TOOLS_DIR || join(homedir(), ".cache", "tern-tools");
const webTools = join(toolsDir, "web");
const nodeModules = join(webTools, "node_modules");
const require = createRequire(join(webTools, "package.json"));

function usage() {
  process.stderr.write(
    "usage: node web-client.mjs build OUT_DIR\n" +
      "       node web-client.mjs open URL [--chromium=PATH] [--timeout-ms=N]\n",
  );
  process.exit(2);
}

function flag(args, name, defaultValue) {
  const prefix = `--${name}=`;
  const found = args.filter((a) => a.startsWith(prefix)).pop();
  return found === undefined ? defaultValue : found.substring(prefix.length);
}

async function build(outDir) {
  const src = join(outDir, "src");
  const site = join(outDir, "site");
  mkdirSync(src, { recursive: true });
  mkdirSync(site, { recursive: true });
  // protoc-gen-es 2 writes one _pb.ts per .proto: its messages' schemas and the service's
  // descriptor, which connect-es's createClient takes.
  const template = {
    version: "v2",
    plugins: [
      {
        local: join(nodeModules, ".bin", "protoc-gen-es"),
        out: join(src, "gen"),
        opt: ["target=ts"],
      },
    ],
  };
  execFileSync(
    join(nodeModules, ".bin", "buf"),
    [
      "generate",
      protoRoot,
      "--path",
      join(protoRoot, "routeguide", "route_guide.proto"),
      "--template",
      JSON.stringify(template),
    ],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  copyFileSync(join(here, "routeguide.ts"), join(src, "routeguide.ts"));
  const esbuild = require("esbuild");
  await esbuild.build({
    entryPoints: [join(src, "routeguide.ts")],
    outfile: join(site, "routeguide.js"),
    bundle: true,
    format: "esm",
    target: "es2022",
    nodePaths: [nodeModules],
    logLevel: "warning",
  });
  copyFileSync(join(here, "index.html"), join(site, "index.html"));
}

async function open(url, args) {
  const puppeteer = require("puppeteer-core");
  const timeout = Number(flag(args, "timeout-ms", "30000"));
  const browserArgs = ["--disable-dev-shm-usage", "--disable-gpu"];
  // Chromium refuses to start its sandbox as root (CI runs as root).
  if (process.getuid && process.getuid() === 0) {
    browserArgs.push("--no-sandbox");
  }
  const browser = await puppeteer.launch({
    executablePath: flag(args, "chromium", "/usr/bin/chromium"),
    headless: true,
    args: browserArgs,
  });
  try {
    const page = await browser.newPage();
    page.on("console", (message) => process.stderr.write(`console: ${message.text()}\n`));
    page.on("pageerror", (error) => process.stderr.write(`console: page error: ${error}\n`));
    await page.goto(url, { timeout });
    try {
      await page.waitForSelector('#results[data-state="done"]', { timeout });
    } catch (e) {
      const partial = await page.$eval("#results", (e) => e.textContent).catch(() => "");
      process.stderr.write(`the page did not finish within ${timeout} ms: ${e}\n${partial}`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(await page.$eval("#results", (e) => e.textContent));
  } finally {
    await browser.close();
  }
}

const [command, target, ...rest] = process.argv.slice(2);
if (command === "build" && target) {
  await build(resolve(target));
} else if (command === "open" && target) {
  await open(target, rest);
} else {
  usage();
}
