// The call view: a form generated from the request's descriptor (or raw JSON), metadata, a
// deadline; sends over Connect JSON or gRPC-Web (binary, encoded with the descriptors) and shows
// the answer, its status, details, headers and trailers, and timing. Client and bidi streaming
// collect messages, then send them half-duplex.

import { base64ToBytes, decodeMessageValue, ERROR_DETAIL_TYPES } from "./pb.js";
import { decodeMessage, encodeMessage } from "./pbjson.js";
import { grpcWeb, stream, unary } from "./rpc.js";
import { el, mapEntryOf, typeLabel } from "./services.js";

// Well-known types whose JSON is a string (or a JSON value) rather than an object of fields.
const TEXT_TYPES = new Set([
  "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask",
  "google.protobuf.StringValue", "google.protobuf.BytesValue", "google.protobuf.Int64Value",
  "google.protobuf.UInt64Value",
]);
const NUMBER_WRAPPERS = new Set([
  "google.protobuf.Int32Value", "google.protobuf.UInt32Value", "google.protobuf.FloatValue",
  "google.protobuf.DoubleValue",
]);
const JSON_TYPES = new Set([
  "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue",
  "google.protobuf.Any", "google.protobuf.Empty",
]);
const NUMBER_TYPES = new Set([1, 2, 5, 7, 13, 15, 17]); // 64-bit integers go as strings

// An editor for one value of `field`: returns {node, read()} where read() gives the JSON value
// or undefined when left empty.
function valueEditor(field, registry, label) {
  const id = label;
  if (field.type === 8) {
    const input = el("select", { "data-field": id });
    for (const option of ["", "true", "false"]) input.append(el("option", { value: option, text: option || "(unset)" }));
    return { node: input, read: () => (input.value === "" ? undefined : input.value === "true") };
  }
  if (field.type === 14) {
    const input = el("select", { "data-field": id });
    input.append(el("option", { value: "", text: "(unset)" }));
    for (const value of registry.get(field.typeName)?.values || []) {
      input.append(el("option", { value: value.name, text: `${value.name} (${value.number})` }));
    }
    return { node: input, read: () => (input.value === "" ? undefined : input.value) };
  }
  if (field.type === 11) {
    if (TEXT_TYPES.has(field.typeName) || NUMBER_WRAPPERS.has(field.typeName)) {
      const input = el("input", { "data-field": id, placeholder: wktHint(field.typeName) });
      return {
        node: input,
        read: () => (input.value === "" ? undefined
          : NUMBER_WRAPPERS.has(field.typeName) ? Number(input.value) : input.value),
      };
    }
    if (JSON_TYPES.has(field.typeName)) {
      const input = el("input", { "data-field": id, placeholder: "JSON" });
      return { node: input, read: () => (input.value === "" ? undefined : JSON.parse(input.value)) };
    }
    const form = messageForm(registry.get(field.typeName), registry, id);
    return { node: form.node, read: form.read };
  }
  const input = el("input", { "data-field": id, placeholder: typeLabel(field) });
  if (NUMBER_TYPES.has(field.type)) input.type = "number";
  return {
    node: input,
    read: () => (input.value === "" ? undefined : NUMBER_TYPES.has(field.type) ? Number(input.value) : input.value),
  };
}

function wktHint(typeName) {
  switch (typeName) {
    case "google.protobuf.Timestamp": return "2026-01-02T15:04:05Z";
    case "google.protobuf.Duration": return "1.5s";
    case "google.protobuf.FieldMask": return "a.b,c";
    default: return typeName.substring("google.protobuf.".length);
  }
}

// A list editor (repeated fields and maps): an "add" button and a remove button per item.
function listEditor(makeItem, id) {
  const items = [];
  const box = el("div", { class: "list", "data-list": id });
  const add = el("button", { type: "button", text: "+ add", "data-add": id });
  add.addEventListener("click", () => {
    const item = makeItem();
    const row = el("div", { class: "row" }, item.node);
    const remove = el("button", { type: "button", text: "−" });
    remove.addEventListener("click", () => {
      items.splice(items.indexOf(item), 1);
      row.remove();
    });
    row.append(remove);
    box.insertBefore(row, add);
    items.push(item);
  });
  box.append(add);
  return { node: box, items };
}

// A form for every field of `type`; read() gives the JSON object or undefined if all empty.
export function messageForm(type, registry, path = "") {
  const box = el("fieldset", { "data-message": type.fullName });
  box.append(el("legend", { text: type.fullName }));
  const readers = [];
  const oneofs = new Map();
  for (const field of type.fields) {
    const id = path ? `${path}.${field.jsonName}` : field.jsonName;
    if (field.oneofIndex >= 0 && !field.proto3Optional) {
      const group = oneofs.get(field.oneofIndex) || [];
      group.push({ field, id });
      oneofs.set(field.oneofIndex, group);
      continue;
    }
    const row = el("label", { class: "field" }, el("span", { text: field.jsonName }));
    const entry = mapEntryOf(registry, field);
    if (entry) {
      const [keyField, valueField] = entry.fields;
      const list = listEditor(() => {
        const key = valueEditor(keyField, registry, `${id}.key`);
        const value = valueEditor(valueField, registry, `${id}.value`);
        return { node: el("span", {}, key.node, value.node), read: () => [key.read(), value.read()] };
      }, id);
      row.append(list.node);
      readers.push(() => {
        const pairs = list.items.map((i) => i.read()).filter(([k]) => k !== undefined);
        return [field.jsonName, pairs.length ? Object.fromEntries(pairs) : undefined];
      });
    } else if (field.repeated) {
      const list = listEditor(() => valueEditor(field, registry, `${id}[]`), id);
      row.append(list.node);
      readers.push(() => {
        const values = list.items.map((i) => i.read()).filter((v) => v !== undefined);
        return [field.jsonName, values.length ? values : undefined];
      });
    } else {
      const editor = valueEditor(field, registry, id);
      row.append(editor.node);
      readers.push(() => [field.jsonName, editor.read()]);
    }
    box.append(row);
  }
  for (const [index, members] of oneofs) {
    const name = type.oneofs[index];
    const choice = el("select", { "data-oneof": path ? `${path}.${name}` : name });
    choice.append(el("option", { value: "", text: "(none)" }));
    const editors = members.map(({ field, id }) => {
      choice.append(el("option", { value: field.jsonName, text: field.jsonName }));
      const editor = valueEditor(field, registry, id);
      const holder = el("div", { hidden: "" }, editor.node);
      return { field, editor, holder };
    });
    choice.addEventListener("change", () => {
      for (const e of editors) e.holder.hidden = e.field.jsonName !== choice.value;
    });
    box.append(el("label", { class: "field" }, el("span", { text: `oneof ${name}` }), choice));
    for (const e of editors) box.append(e.holder);
    readers.push(() => {
      const chosen = editors.find((e) => e.field.jsonName === choice.value);
      return chosen ? [chosen.field.jsonName, chosen.editor.read() ?? {}] : [name, undefined];
    });
  }
  return {
    node: box,
    read: () => {
      const out = {};
      for (const reader of readers) {
        const [key, value] = reader();
        if (value !== undefined) out[key] = value;
      }
      return Object.keys(out).length ? out : undefined;
    },
  };
}

function quoteShell(text) {
  return "'" + text.replace(/'/g, "'\\''") + "'";
}

export function grpcurlCommand(method, json, metadata) {
  const headers = metadata.filter(([k]) => k).map(([k, v]) => `-H ${quoteShell(`${k}: ${v}`)} `).join("");
  return `grpcurl -plaintext ${headers}-d ${quoteShell(json)} ${location.host} ${method.fullName}`;
}

export function bufCurlCommand(method, json, metadata, protocol = "connect") {
  const headers = metadata.filter(([k]) => k).map(([k, v]) => `-H ${quoteShell(`${k}: ${v}`)} `).join("");
  return `buf curl --protocol ${protocol} ${headers}-d ${quoteShell(json)} ${location.origin}/${method.fullName}`;
}

// Calls `method` over Connect JSON, or over gRPC-Web with the messages encoded by the
// descriptors in `registry`: unary resolves with `response`, streaming calls onMessage(object).
function caller(method, registry, transport) {
  const viaGrpcWeb = () => transport.value === "grpc-web";
  const encode = (json) => encodeMessage(JSON.parse(json), method.input, registry);
  const decode = (bytes) => decodeMessage(bytes, method.output, registry);
  return {
    async unary(json, options) {
      if (!viaGrpcWeb()) return unary(method.fullName, json, options);
      const responses = [];
      const result = await grpcWeb(method.fullName, [encode(json)], (b) => responses.push(decode(b)), options);
      return result.code === "ok" ? { ...result, response: responses[0] } : result;
    },
    stream(messages, onMessage, options) {
      if (!viaGrpcWeb()) return stream(method.fullName, messages, onMessage, options);
      return grpcWeb(method.fullName, messages.map(encode), (b) => onMessage(decode(b)), options);
    },
  };
}

function table(rows, id) {
  const t = el("table", { id });
  t.append(el("tr", {}, el("th", { text: "Name" }), el("th", { text: "Value" })));
  for (const [name, value] of rows) t.append(el("tr", {}, el("td", { text: name }), el("td", { text: value })));
  return t;
}

// Shows `result` (from rpc.js) under `out`; decodes google.rpc.Status details it can name.
function showResult(out, result, registry) {
  const ok = result.code === "ok";
  out.append(el("p", { id: "call-status", class: ok ? "status-ok" : "status-error",
    text: ok ? `OK in ${result.ms.toFixed(1)} ms` : `${result.code}: ${result.message}` }));
  if (!ok) out.append(el("p", { text: `after ${result.ms.toFixed(1)} ms (HTTP ${result.httpStatus})` }));
  if (result.response !== undefined) {
    out.append(el("h3", { text: "Response" }), el("pre", { id: "call-response", text: JSON.stringify(result.response, null, 2) }));
  }
  if (result.details.length) {
    out.append(el("h3", { text: "Details" }));
    const details = result.details.map((d) => {
      let decoded;
      try {
        const known = new Map([...ERROR_DETAIL_TYPES, ...registry]);
        decoded = decodeMessageValue(base64ToBytes(d.value || ""), d.type, known);
      } catch (e) {
        decoded = { error: String(e), value: d.value };
      }
      return { type: d.type, ...decoded };
    });
    out.append(el("pre", { id: "call-details", text: JSON.stringify(details, null, 2) }));
  }
  out.append(el("h3", { text: "Headers" }), table(result.headers, "call-headers"));
  out.append(el("h3", { text: "Trailers" }), table(result.trailers, "call-trailers"));
}

// Builds the call panel for `method`; `examples` are the JSON texts the server registered.
export function renderCall(method, registry, examples) {
  const panel = document.getElementById("call-panel");
  document.getElementById("call-empty").hidden = true;
  panel.hidden = false;
  panel.replaceChildren();
  panel.setAttribute("data-method", method.fullName);
  panel.append(el("h2", { text: `${method.fullName} (${method.callType})` }));
  if (method.comment) panel.append(el("p", { class: "comment", text: method.comment }));

  const input = registry.get(method.input);
  const form = messageForm(input, registry);
  const raw = el("textarea", { id: "raw-json", spellcheck: "false" });
  raw.value = "{}";
  const useRaw = el("input", { type: "checkbox", id: "use-raw" });
  const toRaw = el("button", { type: "button", text: "form → JSON" });
  toRaw.addEventListener("click", () => { raw.value = JSON.stringify(form.read() || {}, null, 2); });
  panel.append(form.node, el("div", { class: "toolbar" },
    el("label", {}, useRaw, " send the JSON below instead of the form"), toRaw), raw);
  const exampleList = examples || [];
  if (exampleList.length) {
    const pick = el("select", { id: "examples" });
    pick.append(el("option", { value: "", text: "Examples…" }));
    exampleList.forEach((e, i) => pick.append(el("option", { value: String(i), text: e })));
    pick.addEventListener("change", () => {
      if (pick.value === "") return;
      raw.value = exampleList[Number(pick.value)];
      useRaw.checked = true;
    });
    panel.append(el("div", { class: "toolbar" }, pick));
  }

  const metadataRows = listEditor(() => {
    const key = el("input", { placeholder: "name", class: "meta-name" });
    const value = el("input", { placeholder: "value", class: "meta-value" });
    return { node: el("span", {}, key, value), read: () => [key.value.trim().toLowerCase(), value.value] };
  }, "metadata");
  const deadline = el("input", { type: "number", id: "deadline-ms", placeholder: "none", min: "1" });
  const transport = el("select", { id: "transport" },
    el("option", { value: "connect", text: "Connect (JSON)" }),
    el("option", { value: "grpc-web", text: "gRPC-Web (binary)" }));
  const calls = caller(method, registry, transport);
  panel.append(el("h3", { text: "Metadata" }), metadataRows.node,
    el("label", { class: "field" }, el("span", { text: "deadline (ms)" }), deadline),
    el("label", { class: "field" }, el("span", { text: "protocol" }), transport));

  const requestJson = () => (useRaw.checked ? raw.value : JSON.stringify(form.read() || {}));
  const pending = [];
  const pendingList = el("ol", { id: "pending-messages" });
  const buttons = el("div", { class: "toolbar" });
  if (method.clientStreaming) {
    const add = el("button", { type: "button", id: "add-message", text: "Add message" });
    add.addEventListener("click", () => {
      pending.push(requestJson());
      pendingList.append(el("li", { text: pending.at(-1) }));
    });
    buttons.append(add);
  }
  const send = el("button", { type: "button", id: "send", text: method.clientStreaming ? "Send all" : "Send" });
  const copyGrpcurl = el("button", { type: "button", id: "copy-grpcurl", text: "Copy as grpcurl" });
  const copyBuf = el("button", { type: "button", id: "copy-buf-curl", text: "Copy as buf curl" });
  const copied = el("pre", { id: "copied", hidden: "" });
  const copy = (make) => {
    const metadata = metadataRows.items.map((i) => i.read());
    copied.textContent = make(method, pending.length ? pending.join("\n") : requestJson(), metadata);
    copied.hidden = false;
    navigator.clipboard?.writeText(copied.textContent).catch(() => {});
  };
  copyGrpcurl.addEventListener("click", () => copy(grpcurlCommand));
  copyBuf.addEventListener("click", () => copy((m, json, metadata) =>
    bufCurlCommand(m, json, metadata, transport.value === "grpc-web" ? "grpcweb" : "connect")));
  buttons.append(send, copyGrpcurl, copyBuf);
  const out = el("div", { id: "call-result" });
  panel.append(pendingList, buttons, copied, out);

  send.addEventListener("click", async () => {
    out.replaceChildren(el("p", { text: "calling…" }));
    out.removeAttribute("data-state");
    const options = {
      metadata: metadataRows.items.map((i) => i.read()),
      timeoutMs: deadline.value ? Number(deadline.value) : undefined,
    };
    let result;
    try {
      if (!method.clientStreaming && !method.serverStreaming) {
        result = await calls.unary(requestJson(), options);
        out.replaceChildren();
      } else {
        out.replaceChildren();
        const streamed = el("div", { id: "stream-messages" });
        out.append(el("h3", { text: "Messages" }), streamed);
        const messages = method.clientStreaming ? (pending.length ? [...pending] : [requestJson()]) : [requestJson()];
        result = await calls.stream(messages, (m) => {
          streamed.append(el("pre", { class: "stream-message", text: JSON.stringify(m, null, 2) }));
        }, options);
        const list = out.removeChild(out.firstChild);
        const messagesBox = out.removeChild(out.firstChild);
        showResult(out, result, registry);
        out.append(list, messagesBox);
        out.setAttribute("data-state", "done");
        return;
      }
    } catch (e) {
      out.replaceChildren(el("p", { id: "call-status", class: "status-error", text: `failed: ${e}` }));
      out.setAttribute("data-state", "done");
      return;
    }
    showResult(out, result, registry);
    out.setAttribute("data-state", "done");
  });
}
