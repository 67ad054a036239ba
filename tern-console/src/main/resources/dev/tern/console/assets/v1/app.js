// The console's entry point: loads the schema through reflection, then shows one of three views
// (services, call, state) by the URL's fragment.

import { token } from "./rpc.js";
import { filterServices, loadSchema, renderServices } from "./services.js";
import { renderCall } from "./call.js";
import { startRefreshing, stopRefreshing } from "./state.js";

const status = document.getElementById("server-status");
let schema = null;
let examples = {};

function show(view) {
  for (const name of ["services", "call", "state"]) {
    document.getElementById(`view-${name}`).hidden = name !== view;
    document.getElementById(`nav-${name}`).classList.toggle("active", name === view);
  }
  if (view === "state" && schema) startRefreshing(schema.services.map((s) => s.fullName));
  else stopRefreshing();
}

function route() {
  const view = location.hash.replace("#", "") || "services";
  show(["services", "call", "state"].includes(view) ? view : "services");
}

async function loadExamples() {
  const response = await fetch("api/examples", { method: "POST", headers: { "x-tern-console-token": token } });
  return response.ok ? response.json() : {};
}

async function main() {
  window.addEventListener("hashchange", route);
  document.getElementById("search").addEventListener("input", (e) => filterServices(e.target.value));
  route();
  try {
    [schema, examples] = await Promise.all([loadSchema(), loadExamples()]);
  } catch (e) {
    status.textContent = String(e.message || e);
    document.body.setAttribute("data-state", "error");
    return;
  }
  renderServices(schema, (method) => {
    renderCall(method, schema.registry, examples[method.fullName]);
    location.hash = "#call";
  });
  status.textContent = `${schema.services.length} services`;
  document.body.setAttribute("data-state", "ready");
  route();
}

main();
