// Calls by fetch(): over the Connect protocol with JSON (unary as one POST, streaming as enveloped
// messages), or over gRPC-Web with binary messages; half-duplex: the request body is sent whole,
// then the response is read as it arrives. Every call carries the page's token.

import { base64ToBytes, readFields } from "./pb.js";

export const token = document.querySelector('meta[name="tern-console-token"]').content;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function requestHeaders(contentType, options) {
  const headers = new Headers();
  for (const [name, value] of options.metadata || []) {
    if (name) headers.append(name, value);
  }
  headers.set("content-type", contentType);
  headers.set("connect-protocol-version", "1");
  headers.set("x-tern-console-token", token);
  if (options.timeoutMs) headers.set("connect-timeout-ms", String(options.timeoutMs));
  return headers;
}

function splitHeaders(response) {
  const headers = [];
  const trailers = [];
  response.headers.forEach((value, name) => {
    if (name.startsWith("trailer-")) trailers.push([name.substring(8), value]);
    else headers.push([name, value]);
  });
  return { headers, trailers };
}

// A Connect unary call. Resolves to {code, message, details, response, headers, trailers, ms};
// code is "ok" on success. Rejects only when fetch itself fails.
export async function unary(method, body, options = {}) {
  const start = performance.now();
  const response = await fetch("/" + method, {
    method: "POST",
    headers: requestHeaders("application/json", options),
    body,
  });
  const text = await response.text();
  const result = { ...splitHeaders(response), httpStatus: response.status };
  result.ms = performance.now() - start;
  let json;
  try {
    json = text ? JSON.parse(text) : {};
  } catch (e) {
    return { ...result, code: "unknown", message: `HTTP ${response.status}: ${text}`, details: [] };
  }
  if (response.ok) return { ...result, code: "ok", message: "", details: [], response: json };
  return { ...result, code: json.code || "unknown", message: json.message || "", details: json.details || [] };
}

// One request body: each payload after its 5-byte prefix (flags 0, then the length).
function frames(payloads) {
  const body = new Uint8Array(payloads.reduce((n, p) => n + 5 + p.length, 0));
  let offset = 0;
  for (const payload of payloads) {
    new DataView(body.buffer).setUint32(offset + 1, payload.length);
    body.set(payload, offset + 5);
    offset += 5 + payload.length;
  }
  return body;
}

// A Connect streaming call with JSON: sends `messages` (JSON texts) as the request, then calls
// onMessage(object) for each response message as it arrives. Resolves like unary, with
// `messages` the count received.
export async function stream(method, messages, onMessage, options = {}) {
  const start = performance.now();
  const response = await fetch("/" + method, {
    method: "POST",
    headers: requestHeaders("application/connect+json", options),
    body: frames(messages.map((m) => encoder.encode(m))),
  });
  const result = { ...splitHeaders(response), httpStatus: response.status, messages: 0 };
  if (!response.headers.get("content-type")?.startsWith("application/connect+json")) {
    const text = await response.text();
    let error = {};
    try { error = JSON.parse(text); } catch (e) { error = { message: `HTTP ${response.status}: ${text}` }; }
    return { ...result, ms: performance.now() - start, code: error.code || "unknown",
      message: error.message || "", details: error.details || [] };
  }
  let end = null;
  await readFrames(response, (flags, bytes) => {
    const json = JSON.parse(decoder.decode(bytes) || "{}");
    if (flags & 0x02) {
      end = json;
    } else {
      result.messages++;
      onMessage(json);
    }
  });
  result.ms = performance.now() - start;
  if (end && end.metadata) {
    for (const [name, values] of Object.entries(end.metadata)) {
      for (const value of values) result.trailers.push([name, value]);
    }
  }
  if (!end) return { ...result, code: "unknown", message: "the stream ended without its end message", details: [] };
  if (end.error) {
    return { ...result, code: end.error.code || "unknown", message: end.error.message || "", details: end.error.details || [] };
  }
  return { ...result, code: "ok", message: "", details: [] };
}

// Reads 5-byte-prefixed frames from a fetch() response body as they arrive: onFrame(flags, bytes).
async function readFrames(response, onFrame) {
  const reader = response.body.getReader();
  let buffer = new Uint8Array(0);
  for (;;) {
    const { value, done } = await reader.read();
    if (value) {
      const joined = new Uint8Array(buffer.length + value.length);
      joined.set(buffer);
      joined.set(value, buffer.length);
      buffer = joined;
    }
    while (buffer.length >= 5) {
      const length = new DataView(buffer.buffer, buffer.byteOffset + 1, 4).getUint32(0);
      if (buffer.length < 5 + length) break;
      onFrame(buffer[0], buffer.subarray(5, 5 + length));
      buffer = buffer.subarray(5 + length);
    }
    if (done) return buffer.length;
  }
}

// gRPC status codes by number, named as Connect names them (the page shows one naming).
const CODES = ["ok", "canceled", "unknown", "invalid_argument", "deadline_exceeded", "not_found",
  "already_exists", "permission_denied", "resource_exhausted", "failed_precondition", "aborted",
  "out_of_range", "unimplemented", "internal", "unavailable", "data_loss", "unauthenticated"];

function bytesToBase64(bytes) {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

// The details of a grpc-status-details-bin value (a google.rpc.Status), as Connect lists them.
function statusDetails(base64) {
  const details = [];
  if (!base64) return details;
  readFields(base64ToBytes(base64), {
    3: (r) => {
      const detail = { type: "", value: "" };
      readFields(r.bytesField(), {
        1: (ar) => { const url = ar.string(); detail.type = url.substring(url.lastIndexOf("/") + 1); },
        2: (ar) => { detail.value = bytesToBase64(ar.bytesField()); },
      });
      details.push(detail);
    },
  });
  return details;
}

// A gRPC-Web call with binary messages: sends `messages` (Uint8Arrays, encoded by the caller)
// framed in one body, then calls onMessage(bytes) for each response message as it arrives.
// Resolves like stream(); the status comes from the trailers frame (or, for a trailers-only
// answer, the headers).
export async function grpcWeb(method, messages, onMessage, options = {}) {
  const start = performance.now();
  const headers = new Headers();
  for (const [name, value] of options.metadata || []) {
    if (name) headers.append(name, value);
  }
  headers.set("content-type", "application/grpc-web+proto");
  headers.set("x-grpc-web", "1");
  headers.set("x-tern-console-token", token);
  if (options.timeoutMs) headers.set("grpc-timeout", `${options.timeoutMs}m`);
  const response = await fetch("/" + method, { method: "POST", headers, body: frames(messages) });
  const result = { headers: [], trailers: [], httpStatus: response.status, messages: 0 };
  const status = new Map();
  response.headers.forEach((value, name) => {
    if (name.startsWith("grpc-")) status.set(name, value);
    result.headers.push([name, value]);
  });
  let left = 0;
  if (response.ok && response.body) {
    left = await readFrames(response, (flags, bytes) => {
      if (flags & 0x80) {
        for (const line of decoder.decode(bytes).split("\r\n")) {
          const colon = line.indexOf(":");
          if (colon <= 0) continue;
          const name = line.substring(0, colon).trim().toLowerCase();
          const value = line.substring(colon + 1).trim();
          result.trailers.push([name, value]);
          if (name.startsWith("grpc-")) status.set(name, value);
        }
      } else {
        result.messages++;
        onMessage(bytes);
      }
    });
  }
  result.ms = performance.now() - start;
  if (!status.has("grpc-status")) {
    const why = response.ok ? (left ? "a frame was cut short" : "no grpc-status")
      : `HTTP ${response.status}: ${await response.text()}`;
    return { ...result, code: "unknown", message: `the call ended without its status (${why})`, details: [] };
  }
  const code = CODES[Number(status.get("grpc-status"))] || "unknown";
  let message = status.get("grpc-message") || "";
  try { message = decodeURIComponent(message); } catch (e) { /* shown as sent */ }
  return { ...result, code, message, details: statusDetails(status.get("grpc-status-details-bin")) };
}
