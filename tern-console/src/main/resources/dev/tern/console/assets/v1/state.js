// The state view: health per service (grpc.health.v1), channelz (grpc.channelz.v1) and the calls
// the console counted per method (its endpoint api/metrics) as tables, refreshed every few seconds
// while shown, with a chart of calls started over time.

import { token, unary } from "./rpc.js";
import { el } from "./services.js";

const HISTORY = 60;
const samples = []; // {time, started} for the chart

function fill(tableId, rows) {
  const body = document.querySelector(`#${tableId} tbody`);
  body.replaceChildren(...rows.map((cells) => el("tr", {}, ...cells.map((c) => el("td", { text: String(c) })))));
}

async function health(services) {
  const rows = [];
  for (const service of ["", ...services]) {
    const result = await unary("grpc.health.v1.Health/Check", JSON.stringify({ service }));
    const status = result.code === "ok" ? result.response.status || "UNKNOWN"
      : result.code === "unimplemented" ? "(no health service)"
      : result.code === "not_found" ? "(no status set)" : `${result.code}: ${result.message}`;
    rows.push([service || "(server)", status]);
    if (result.code === "unimplemented") break;
  }
  fill("health-table", rows);
}

async function channelz() {
  const servers = await unary("grpc.channelz.v1.Channelz/GetServers", "{}");
  if (servers.code !== "ok") {
    fill("channelz-table", [[`${servers.code}: ${servers.message}`, "", "", "", ""]]);
    return;
  }
  const list = servers.response.server || [];
  fill("channelz-table", list.map((s) => [
    s.ref?.serverId ?? "", s.data?.callsStarted ?? "0", s.data?.callsSucceeded ?? "0",
    s.data?.callsFailed ?? "0", s.data?.lastCallStartedTimestamp ?? "",
  ]));
  const socketRows = [];
  for (const s of list) {
    const sockets = await unary("grpc.channelz.v1.Channelz/GetServerSockets",
      JSON.stringify({ serverId: s.ref?.serverId ?? "0" }));
    for (const ref of sockets.response?.socketRef || []) {
      socketRows.push([s.ref?.serverId ?? "", ref.socketId ?? "", ref.name ?? ""]);
    }
    for (const ref of s.listenSocket || []) {
      socketRows.push([s.ref?.serverId ?? "", `${ref.socketId ?? ""} (listening)`, ref.name ?? ""]);
    }
  }
  fill("socket-table", socketRows);
  const started = list.reduce((n, s) => n + Number(s.data?.callsStarted ?? 0), 0);
  samples.push({ time: Date.now(), started });
  if (samples.length > HISTORY) samples.shift();
  drawChart();
}

// Calls started per refresh, as an SVG polyline (no script or style inside the SVG).
function drawChart() {
  const width = 480;
  const height = 100;
  const deltas = samples.slice(1).map((s, i) => s.started - samples[i].started);
  const max = Math.max(1, ...deltas);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "chart");
  svg.setAttribute("width", String(width));
  svg.setAttribute("height", String(height));
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "calls started per refresh");
  const line = document.createElementNS(ns, "polyline");
  const step = width / Math.max(1, HISTORY - 1);
  line.setAttribute("points", deltas.map((d, i) => `${(i * step).toFixed(1)},${(height - 14 - (d / max) * (height - 24)).toFixed(1)}`).join(" "));
  const label = document.createElementNS(ns, "text");
  label.setAttribute("x", "4");
  label.setAttribute("y", String(height - 2));
  label.textContent = deltas.length === 0
    ? "calls started per refresh: collecting (every 2 s)"
    : `calls started per refresh (max ${max}); includes the console's own`;
  svg.append(line, label);
  document.getElementById("calls-chart").replaceChildren(svg);
}

// The console's own counts of this server's calls (TernConsole's stream tracer).
async function metrics() {
  const response = await fetch("api/metrics", { method: "POST", headers: { "x-tern-console-token": token } });
  if (!response.ok) {
    fill("metrics-table", [[`HTTP ${response.status}: ${await response.text()}`, "", "", "", "", ""]]);
    return;
  }
  const counts = await response.json();
  const codes = (ended) => Object.entries(ended).map(([code, n]) => `${code} ${n}`).join(", ");
  fill("metrics-table", counts.methods.map((m) => {
    const ended = Object.values(m.ended).reduce((a, b) => a + b, 0);
    return [m.method, m.started, codes(m.ended), `${m.messagesReceived} / ${m.messagesSent}`,
      `${m.bytesReceived} / ${m.bytesSent}`, ended ? `${(m.nanos / ended / 1e6).toFixed(1)} ms` : ""];
  }));
  const notHandled = [
    ...Object.entries(counts.refused).map(([reason, n]) => [`refused: ${reason}`, n]),
    ...Object.entries(counts.endedBeforeHandler).map(([code, n]) => [`ended before a handler: ${code}`, n]),
  ];
  fill("refusal-table", notHandled.length ? notHandled : [["(none)", ""]]);
}

let timer = null;

export async function refreshState(services) {
  await health(services);
  await channelz();
  await metrics();
  document.getElementById("view-state").setAttribute("data-refreshed", String(Date.now()));
}

export function startRefreshing(services) {
  stopRefreshing();
  const tick = async () => {
    try {
      await refreshState(services);
    } finally {
      timer = setTimeout(tick, 2000);
    }
  };
  tick();
}

export function stopRefreshing() {
  if (timer !== null) clearTimeout(timer);
  timer = null;
}
