// Fills the console's generated form for tern.examples.consoletest.FormEcho/Echo (a field of every
// kind: a oneof, an enum, a map, a repeated message, a Timestamp, a Duration, a wrapper, a Struct),
// with a metadata row and a deadline, sends it over Connect JSON, then over gRPC-Web (binary), and
// prints what the page showed as one JSON object
// (FormKindsConsoleBrowserTest asserts it, and what the server received).
//
//   node console-form-driver.mjs URL SCREENSHOT_DIR [--chromium=PATH] [--timeout-ms=N]

import { join } from "node:path";
import { openConsole, openMethod, report, send } from "./console-page.mjs";

const { url, shots, browser, page } = await openConsole("console-form-driver.mjs");
await report(browser, async (out) => {
  await openMethod(page, url, "tern.examples.consoletest.FormEcho/Echo");
  const type = (field, text, index = 0) =>
    page.$$(`[data-field="${field}"]`).then((inputs) => inputs[index].type(text));

  await type("name", "Ada");
  await page.select('select[data-field="color"]', "GREEN");
  await page.click('button[data-add="counts"]');
  await type("counts.key", "apples");
  await type("counts.value", "3");
  await page.click('button[data-add="items"]');
  await page.click('button[data-add="items"]');
  await type("items[].label", "first", 0);
  await type("items[].quantity", "1", 0);
  await type("items[].label", "second", 1);
  await type("items[].quantity", "2", 1);
  await type("sentAt", "2026-01-02T15:04:05Z");
  await type("waitTime", "1.5s");
  await type("note", "a wrapped string");
  await type("extra", '{"tags": ["x", true]}');
  out.oneofChoices = await page.$$eval('select[data-oneof="choice"] option', (os) => os.map((o) => o.value));
  await page.select('select[data-oneof="choice"]', "chosenItem");
  await type("chosenItem.label", "chosen");
  await type("chosenItem.quantity", "7");

  await page.click('button[data-add="metadata"]');
  await page.type(".meta-name", "X-Console-Test");
  await page.type(".meta-value", "from the page");
  await page.type("#deadline-ms", "3600000");

  out.status = (await send(page)).replace(/ in .*/, "");
  out.echoed = JSON.parse(await page.$eval("#call-response", (e) => e.textContent));
  await page.screenshot({ path: join(shots, "console-form.png"), fullPage: true });

  // The same form again over gRPC-Web: the page encodes it in binary with the descriptors.
  await page.select("#transport", "grpc-web");
  out.grpcWebStatus = (await send(page)).replace(/ in .*/, "");
  out.grpcWebEchoed = JSON.parse(await page.$eval("#call-response", (e) => e.textContent));
});
