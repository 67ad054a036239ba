// The services view: what the server's reflection (grpc.reflection.v1) describes, searchable.

import { base64ToBytes, decodeFile, TYPE_NAMES } from "./pb.js";
import { stream } from "./rpc.js";

const REFLECTION = "grpc.reflection.v1.ServerReflection/ServerReflectionInfo";

// Asks reflection, half-duplex: every request in one body, the responses read after.
async function ask(requests) {
  const responses = [];
  const result = await stream(REFLECTION, requests.map((r) => JSON.stringify(r)), (m) => responses.push(m));
  if (result.code !== "ok") {
    throw new Error(`reflection failed: ${result.code}: ${result.message}` +
      " (does the server add ProtoReflectionService.v1()?)");
  }
  return responses;
}

// Loads every service and the files describing them. Returns {services, registry}.
export async function loadSchema() {
  const [list] = await ask([{ listServices: "" }]);
  const names = (list.listServicesResponse?.service || []).map((s) => s.name);
  const registry = new Map();
  const files = new Map();
  let requests = names.map((name) => ({ fileContainingSymbol: name }));
  for (let round = 0; requests.length > 0 && round < 10; round++) {
    for (const response of await ask(requests)) {
      for (const encoded of response.fileDescriptorResponse?.fileDescriptorProto || []) {
        const file = decodeFile(base64ToBytes(encoded), registry);
        files.set(file.name, file);
      }
    }
    const missing = new Set();
    for (const file of files.values()) {
      for (const dependency of file.dependencies) if (!files.has(dependency)) missing.add(dependency);
    }
    requests = [...missing].map((name) => ({ fileByFilename: name }));
  }
  const services = [];
  for (const file of files.values()) {
    for (const service of file.services) if (names.includes(service.fullName)) services.push(service);
  }
  services.sort((a, b) => a.fullName.localeCompare(b.fullName));
  return { services, registry };
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

export function typeLabel(field) {
  if (field.type === 11 || field.type === 14) return field.typeName;
  return TYPE_NAMES[field.type] || String(field.type);
}

export function renderServices(schema, onCall) {
  const list = document.getElementById("service-list");
  const types = document.getElementById("type-list");
  list.replaceChildren();
  types.replaceChildren();
  for (const service of schema.services) {
    const box = el("div", { class: "service", "data-service": service.fullName });
    box.append(el("h3", { text: service.fullName }));
    if (service.comment) box.append(el("p", { class: "comment", text: service.comment }));
    for (const method of service.methods) {
      const row = el("div", { class: "method", "data-method": method.fullName });
      const button = el("button", { type: "button", text: method.name });
      button.addEventListener("click", () => onCall(method));
      row.append(button, el("span", { class: "kind", text: method.callType }),
        el("code", { text: `${method.input} → ${method.output}` }));
      if (method.comment) row.append(el("span", { class: "comment", text: method.comment }));
      box.append(row);
    }
    list.append(box);
  }
  const sorted = [...schema.registry.values()]
    .filter((t) => !(t.kind === "message" && t.mapEntry))
    .sort((a, b) => a.fullName.localeCompare(b.fullName));
  for (const type of sorted) {
    const box = el("div", { class: "type", "data-type": type.fullName });
    box.append(el("h3", { text: `${type.kind} ${type.fullName}` }));
    if (type.comment) box.append(el("p", { class: "comment", text: type.comment }));
    const table = el("table");
    if (type.kind === "message") {
      table.append(el("tr", {}, el("th", { text: "#" }), el("th", { text: "Field" }),
        el("th", { text: "Type" }), el("th", { text: "Notes" })));
      for (const field of type.fields) {
        const notes = [];
        if (field.repeated) notes.push(mapEntryOf(schema.registry, field) ? "map" : "repeated");
        if (field.oneofIndex >= 0 && !field.proto3Optional) notes.push(`oneof ${type.oneofs[field.oneofIndex]}`);
        if (field.proto3Optional) notes.push("optional");
        if (field.comment) notes.push(field.comment);
        table.append(el("tr", {}, el("td", { text: String(field.number) }), el("td", { text: field.name }),
          el("td", { text: typeLabel(field) }), el("td", { class: "comment", text: notes.join("; ") })));
      }
    } else {
      for (const value of type.values) {
        table.append(el("tr", {}, el("td", { text: String(value.number) }), el("td", { text: value.name })));
      }
    }
    box.append(table);
    types.append(box);
  }
}

export function mapEntryOf(registry, field) {
  const type = field.type === 11 && registry.get(field.typeName);
  return type && type.mapEntry ? type : null;
}

// Hides what does not match the search text (names, comments, field names).
export function filterServices(text) {
  const needle = text.trim().toLowerCase();
  for (const node of document.querySelectorAll(".service, .type")) {
    node.hidden = needle !== "" && !node.textContent.toLowerCase().includes(needle);
  }
  for (const node of document.querySelectorAll(".method")) {
    const service = node.closest(".service");
    const serviceMatches = service.querySelector("h3").textContent.toLowerCase().includes(needle);
    node.hidden = needle !== "" && !serviceMatches && !node.textContent.toLowerCase().includes(needle);
  }
}

export { el };
