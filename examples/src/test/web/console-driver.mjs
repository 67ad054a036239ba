// Drives the Tern console in headless Chromium as a user would, and prints what the page showed
// as one JSON object (RouteGuideConsoleBrowserTest asserts it). Saves a screenshot of each view.
//
//   node console-driver.mjs URL SCREENSHOT_DIR [--chromium=PATH] [--timeout-ms=N]

import { join } from "node:path";
import { openConsole, openMethod, report, send } from "./console-page.mjs";

const service = "tern.examples.routeguide.RouteGuide";
const { url, shots, browser, page } = await openConsole("console-driver.mjs");
await report(browser, async (out) => {
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

  const call = (method) => openMethod(page, url, `${service}/${method}`);

  // GetFeature from the generated form: the first point of the example's data.
  await call("GetFeature");
  await page.type('input[data-field="latitude"]', "515055000");
  await page.type('input[data-field="longitude"]', "-754000");
  out.getFeatureStatus = (await send(page)).replace(/ in .*/, "");
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
  out.listFeaturesStatus = (await send(page)).replace(/ in .*/, "");
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
  out.recordRouteStatus = (await send(page)).replace(/ in .*/, "");
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
  out.routeChatStatus = (await send(page)).replace(/ in .*/, "");
  out.routeChat = await page.$$eval(".stream-message", (ms) => ms.map((m) => JSON.parse(m.textContent).message));

  // A bad argument: a latitude off the Earth.
  await call("GetFeature");
  await page.type('input[data-field="latitude"]', "990000000");
  out.badStatus = await send(page);
  out.badDetails = JSON.parse(await page.$eval("#call-details", (e) => e.textContent));
  await page.screenshot({ path: join(shots, "console-error.png"), fullPage: true });

  // The same over gRPC-Web: binary messages the page encodes and decodes with the descriptors.
  await call("GetFeature");
  await page.select("#transport", "grpc-web");
  await page.type('input[data-field="latitude"]', "515055000");
  await page.type('input[data-field="longitude"]', "-754000");
  out.grpcWebGetFeatureStatus = (await send(page)).replace(/ in .*/, "");
  out.grpcWebGetFeature = JSON.parse(await page.$eval("#call-response", (e) => e.textContent));
  await page.$eval('input[data-field="latitude"]', (e) => { e.value = "990000000"; });
  out.grpcWebBadStatus = await send(page);
  out.grpcWebBadDetails = JSON.parse(await page.$eval("#call-details", (e) => e.textContent));
  await call("ListFeatures");
  await page.select("#transport", "grpc-web");
  await setField("lo.latitude", "515070000");
  await setField("lo.longitude", "-1000000");
  await setField("hi.latitude", "515100000");
  await setField("hi.longitude", "-970000");
  out.grpcWebListFeaturesStatus = (await send(page)).replace(/ in .*/, "");
  out.grpcWebListFeatures = await page.$$eval(".stream-message", (ms) => ms.map((m) => JSON.parse(m.textContent).name));
  await call("RecordRoute");
  await page.select("#transport", "grpc-web");
  for (const [lat, lng] of [["515055000", "-754000"], ["515081000", "-759000"]]) {
    await setField("latitude", lat);
    await setField("longitude", lng);
    await page.click("#add-message");
  }
  out.grpcWebRecordRouteStatus = (await send(page)).replace(/ in .*/, "");
  out.grpcWebRecordRoute = await page.$$eval(".stream-message", (ms) => ms.map((m) => {
    const s = JSON.parse(m.textContent);
    return { pointCount: s.pointCount, featureCount: s.featureCount };
  }));

  // The state: health and channelz, after the calls above.
  await page.goto(url.split("#")[0] + "#state");
  await page.waitForSelector("#view-state[data-refreshed]");
  out.health = await page.$$eval("#health-table tbody tr", (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  out.channelz = await page.$$eval("#channelz-table tbody tr", (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  out.sockets = await page.$$eval("#socket-table tbody tr", (rs) => rs.length);
  // The server's counts per method (the console's tracer), once GetFeature's row is in.
  await page.waitForFunction(() => [...document.querySelectorAll("#metrics-table tbody tr")]
    .some((r) => r.cells[0].textContent.endsWith("/GetFeature")));
  out.metrics = await page.$$eval("#metrics-table tbody tr", (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  await page.screenshot({ path: join(shots, "console-state.png"), fullPage: true });
});
