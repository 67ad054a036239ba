// Calls over the Connect protocol with JSON, by fetch(): unary as one POST, streaming as
// enveloped messages (half-duplex: the request body is sent whole, then the response is read
// as it arrives). Every call carries the page's token.

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

function envelope(json) {
  const payload = encoder.encode(json);
  const out = new Uint8Array(5 + payload.length);
  new DataView(out.buffer).setUint32(1, payload.length);
  out.set(payload, 5);
  return out;
}

// A Connect streaming call with JSON: sends `messages` (JSON texts) as the request, then calls
// onMessage(object) for each response message as it arrives. Resolves like unary, with
// `messages` the count received.
export async function stream(method, messages, onMessage, options = {}) {
  const start = performance.now();
  const parts = messages.map(envelope);
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.length;
  }
  const response = await fetch("/" + method, {
    method: "POST",
    headers: requestHeaders("application/connect+json", options),
    body,
  });
  const result = { ...splitHeaders(response), httpStatus: response.status, messages: 0 };
  if (!response.headers.get("content-type")?.startsWith("application/connect+json")) {
    const text = await response.text();
    let error = {};
    try { error = JSON.parse(text); } catch (e) { error = { message: `HTTP ${response.status}: ${text}` }; }
    return { ...result, ms: performance.now() - start, code: error.code || "unknown",
      message: error.message || "", details: error.details || [] };
  }
  const reader = response.body.getReader();
  let buffer = new Uint8Array(0);
  let end = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (value) {
      const joined = new Uint8Array(buffer.length + value.length);
      joined.set(buffer);
      joined.set(value, buffer.length);
      buffer = joined;
    }
    while (buffer.length >= 5) {
      const flags = buffer[0];
      const length = new DataView(buffer.buffer, buffer.byteOffset + 1, 4).getUint32(0);
      if (buffer.length < 5 + length) break;
      const json = JSON.parse(decoder.decode(buffer.subarray(5, 5 + length)) || "{}");
      buffer = buffer.subarray(5 + length);
      if (flags & 0x02) {
        end = json;
      } else {
        result.messages++;
        onMessage(json);
      }
    }
    if (done) break;
  }
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
