// Drives the Tern console in headless Chromium as a user would, and prints what the page showed
// as one JSON object (RouteGuideConsoleBrowserTest asserts it). Saves a screenshot of each view.
//
//   node console-driver.mjs URL SCREENSHOT_DIR [--chromium=PATH] [--timeout-ms=N]

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

const [url, shots, ...rest] = process.argv.slice(2);
if (!url || !shots) {
  process.stderr.write("usage: node console-driver.mjs URL SCREENSHOT_DIR [--chromium=PATH] [--timeout-ms=N]\n");
  process.exit(2);
}
const timeout = Number(flag(rest, "timeout-ms", "20000"));
const service = "tern.examples.routeguide.RouteGuide";
const puppeteer = require("puppeteer-core");
const browserArgs = ["--disable-dev-shm-usage", "--disable-gpu"];
if (process.getuid && process.getuid() === 0) browserArgs.push("--no-sandbox");
const browser = await puppeteer.launch({
  executablePath: flag(rest, "chromium", "/usr/bin/chromium"),
  headless: true,
  args: browserArgs,
  defaultViewport: { width: 1200, height: 900 },
});
const out = {};
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  page.on("console", (m) => process.stderr.write(`console: ${m.text()}\n`));
  page.on("pageerror", (e) => process.stderr.write(`console: page error: ${e}\n`));
  await page.goto(url, { timeout });
  await page.waitForSelector('body[data-state="ready"], body[data-state="error"]');
  out.state = await page.$eval("body", (b) => b.dataset.state);
  out.services = await page.$$eval(".service h3", (hs) => hs.map((h) => h.textContent));
  out.methods = await page.$$eval(`.service[data-service="${service}"] .method`, (ms) =>
    ms.map((m) => `${m.querySelector("button").textContent} ${m.querySelector(".kind").textContent}`));
  // Comments from route_guide.proto: reflection serves the build's descriptor set with them.
  out.pointComment = await page.$eval('.type[data-type="tern.examples.routeguide.Point"] .comment',
    (e) => e.textContent.trim());
  out.listFeaturesComment = await page.$eval(
    `.method[data-method="${service}/ListFeatures"] .comment`, (e) => e.textContent.trim());
  await page.screenshot({ path: join(shots, "console-services.png"), fullPage: false });
  // The search keeps the route guide (its methods mention "Feature") and hides health.
  await page.type("#search", "feature");
  out.searchShows = await page.$$eval(".service:not([hidden]) h3", (hs) => hs.map((h) => h.textContent));

  async function call(method) {
    await page.goto(url.split("#")[0] + "#services");
    await page.click(`.method[data-method="${service}/${method}"] button`);
    await page.waitForSelector(`#call-panel[data-method="${service}/${method}"]`);
  }
  async function send() {
    await page.click("#send");
    await page.waitForSelector('#call-result[data-state="done"]');
    return page.$eval("#call-status", (e) => e.textContent);
  }

  // GetFeature from the generated form: the first point of the example's data.
  await call("GetFeature");
  await page.type('input[data-field="latitude"]', "515055000");
  await page.type('input[data-field="longitude"]', "-754000");
  out.getFeatureStatus = (await send()).replace(/ in .*/, "");
  out.getFeature = JSON.parse(await page.$eval("#call-response", (e) => e.textContent));
  await page.click("#copy-grpcurl");
  out.grpcurl = await page.$eval("#copied", (e) => e.textContent);
  await page.screenshot({ path: join(shots, "console-call.png"), fullPage: true });

  // ListFeatures: a rectangle around the Thames' south bank.
  await call("ListFeatures");
  await page.type('input[data-field="lo.latitude"]', "515070000");
  await page.type('input[data-field="lo.longitude"]', "-1000000");
  await page.type('input[data-field="hi.latitude"]', "515100000");
  await page.type('input[data-field="hi.longitude"]', "-970000");
  out.listFeaturesStatus = (await send()).replace(/ in .*/, "");
  out.listFeatures = await page.$$eval(".stream-message", (ms) => ms.map((m) => JSON.parse(m.textContent).name));
  await page.screenshot({ path: join(shots, "console-stream.png"), fullPage: true });

  await page.click("#copy-buf-curl");
  out.bufCurl = await page.$eval("#copied", (e) => e.textContent.replace(/:\d+\//, ":PORT/"));

  const setField = (name, value) =>
    page.$eval(`input[data-field="${name}"]`, (e, v) => { e.value = v; }, value);

  // RecordRoute (client streaming): two points collected with "Add message", then sent.
  await call("RecordRoute");
  for (const [lat, lng] of [["515055000", "-754000"], ["515081000", "-759000"]]) {
    await setField("latitude", lat);
    await setField("longitude", lng);
    await page.click("#add-message");
  }
  out.recordRouteStatus = (await send()).replace(/ in .*/, "");
  out.recordRoute = await page.$$eval(".stream-message", (ms) => ms.map((m) => {
    const s = JSON.parse(m.textContent);
    return { pointCount: s.pointCount, featureCount: s.featureCount };
  }));

  // RouteChat (bidi, half-duplex): two notes at one point; the second gets the first back.
  await call("RouteChat");
  for (const text of ["first", "second"]) {
    await setField("location.latitude", "1");
    await setField("location.longitude", "2");
    await setField("message", text);
    await page.click("#add-message");
  }
  out.routeChatStatus = (await send()).replace(/ in .*/, "");
  out.routeChat = await page.$$eval(".stream-message", (ms) => ms.map((m) => JSON.parse(m.textContent).message));

  // A bad argument: a latitude off the Earth.
  await call("GetFeature");
  await page.type('input[data-field="latitude"]', "990000000");
  out.badStatus = await send();
  out.badDetails = JSON.parse(await page.$eval("#call-details", (e) => e.textContent));
  await page.screenshot({ path: join(shots, "console-error.png"), fullPage: true });

  // The state: health and channelz, after the calls above.
  await page.goto(url.split("#")[0] + "#state");
  await page.waitForSelector("#view-state[data-refreshed]");
  out.health = await page.$$eval("#health-table tbody tr", (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  out.channelz = await page.$$eval("#channelz-table tbody tr", (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  out.sockets = await page.$$eval("#socket-table tbody tr", (rs) => rs.length);
  await page.screenshot({ path: join(shots, "console-state.png"), fullPage: true });
} catch (e) {
  out.failure = String(e);
  process.exitCode = 1;
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
