// Protobuf binary from and to the proto3 JSON mapping, with the descriptors reflection served:
// what gRPC-Web calls from the page need (the form and the JSON box give JSON; gRPC-Web carries
// binary). The well-known types take their JSON forms (Timestamp, Duration, wrappers, FieldMask,
// Struct/Value/ListValue, Empty, Any). No library: see docs/console.md.

import { base64ToBytes, decodeMessageValue } from "./pb.js";

const utf8 = new TextEncoder();

// A growing byte buffer with protobuf's wire encodings.
class Writer {
  constructor() {
    this.out = [];
  }

  varint(value) {
    let v = BigInt.asUintN(64, BigInt(value));
    while (v > 0x7fn) {
      this.out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.out.push(Number(v));
  }

  tag(number, wireType) {
    this.varint(number * 8 + wireType);
  }

  bytes(number, data) {
    this.tag(number, 2);
    this.varint(data.length);
    for (const b of data) this.out.push(b);
  }

  fixed(number, size, write) {
    this.tag(number, size === 8 ? 1 : 5);
    const view = new DataView(new ArrayBuffer(size));
    write(view);
    for (let i = 0; i < size; i++) this.out.push(view.getUint8(i));
  }

  finish() {
    return Uint8Array.from(this.out);
  }
}

function integer(value, what) {
  if (typeof value === "number" && !Number.isInteger(value)) throw new Error(`${what}: not an integer: ${value}`);
  try {
    return BigInt(value);
  } catch (e) {
    throw new Error(`${what}: not an integer: ${JSON.stringify(value)}`);
  }
}

const WRAPPER_TYPES = {
  "google.protobuf.DoubleValue": 1, "google.protobuf.FloatValue": 2, "google.protobuf.Int64Value": 3,
  "google.protobuf.UInt64Value": 4, "google.protobuf.Int32Value": 5, "google.protobuf.UInt32Value": 13,
  "google.protobuf.BoolValue": 8, "google.protobuf.StringValue": 9, "google.protobuf.BytesValue": 12,
};

// Writes field `number` of scalar `type` (FieldDescriptorProto.Type) with JSON value `value`.
function writeScalar(w, number, type, value, typeName, registry, what) {
  switch (type) {
    case 1: w.fixed(number, 8, (v) => v.setFloat64(0, Number(value), true)); break;
    case 2: w.fixed(number, 4, (v) => v.setFloat32(0, Number(value), true)); break;
    case 3: case 4: case 5: case 13: w.tag(number, 0); w.varint(integer(value, what)); break;
    case 17: case 18: {
      const n = integer(value, what);
      w.tag(number, 0);
      w.varint((n << 1n) ^ (n < 0n ? -1n : 0n));
      break;
    }
    case 6: case 16: w.fixed(number, 8, (v) => v.setBigUint64(0, BigInt.asUintN(64, integer(value, what)), true)); break;
    case 7: case 15: w.fixed(number, 4, (v) => v.setUint32(0, Number(BigInt.asUintN(32, integer(value, what))), true)); break;
    case 8: w.tag(number, 0); w.varint(value === true || value === "true" ? 1 : 0); break;
    case 9: w.bytes(number, utf8.encode(String(value))); break;
    case 12: w.bytes(number, base64ToBytes(String(value))); break;
    case 14: {
      let n = value;
      if (typeof value === "string" && !/^-?\d+$/.test(value)) {
        const en = registry.get(typeName);
        const found = en && en.values.find((v) => v.name === value);
        if (!found) throw new Error(`${what}: ${value} is no value of ${typeName}`);
        n = found.number;
      } else if (value === null) {
        n = 0; // google.protobuf.NullValue
      }
      w.tag(number, 0);
      w.varint(integer(n, what));
      break;
    }
    default: throw new Error(`${what}: unsupported field type ${type}`);
  }
}

// The well-known types whose JSON is not an object of their fields: JSON value -> bytes.
function encodeWellKnown(typeName, value, registry) {
  const w = new Writer();
  switch (typeName) {
    case "google.protobuf.Timestamp": {
      const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/i.exec(String(value));
      if (!m) throw new Error(`Timestamp: not RFC 3339, as 2026-01-02T15:04:05Z: ${value}`);
      const seconds = Date.parse(m[1] + m[3]) / 1000;
      if (Number.isNaN(seconds)) throw new Error(`Timestamp: not a date: ${value}`);
      const nanos = m[2] ? Number(m[2].substring(1).padEnd(9, "0")) : 0;
      if (seconds) { w.tag(1, 0); w.varint(seconds); }
      if (nanos) { w.tag(2, 0); w.varint(nanos); }
      return w.finish();
    }
    case "google.protobuf.Duration": {
      const m = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(String(value));
      if (!m) throw new Error(`Duration: not seconds with an s, as 1.5s: ${value}`);
      const sign = m[1] ? -1n : 1n;
      const seconds = sign * BigInt(m[2]);
      const nanos = sign * BigInt((m[3] || "").padEnd(9, "0"));
      if (seconds) { w.tag(1, 0); w.varint(seconds); }
      if (nanos) { w.tag(2, 0); w.varint(nanos); }
      return w.finish();
    }
    case "google.protobuf.FieldMask":
      for (const path of String(value).split(",").filter((p) => p)) {
        w.bytes(1, utf8.encode(path.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase())));
      }
      return w.finish();
    case "google.protobuf.Struct":
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("Struct: not a JSON object");
      for (const [key, item] of Object.entries(value)) {
        const entry = new Writer();
        entry.bytes(1, utf8.encode(key));
        entry.bytes(2, encodeWellKnown("google.protobuf.Value", item, registry));
        w.bytes(1, entry.finish());
      }
      return w.finish();
    case "google.protobuf.ListValue":
      if (!Array.isArray(value)) throw new Error("ListValue: not a JSON array");
      for (const item of value) w.bytes(1, encodeWellKnown("google.protobuf.Value", item, registry));
      return w.finish();
    case "google.protobuf.Value":
      if (value === null) { w.tag(1, 0); w.varint(0); }
      else if (typeof value === "number") w.fixed(2, 8, (v) => v.setFloat64(0, value, true));
      else if (typeof value === "string") w.bytes(3, utf8.encode(value));
      else if (typeof value === "boolean") { w.tag(4, 0); w.varint(value ? 1 : 0); }
      else if (Array.isArray(value)) w.bytes(6, encodeWellKnown("google.protobuf.ListValue", value, registry));
      else w.bytes(5, encodeWellKnown("google.protobuf.Struct", value, registry));
      return w.finish();
    case "google.protobuf.Any": {
      const url = value && value["@type"];
      if (typeof url !== "string") throw new Error("Any: no @type");
      const inner = url.substring(url.lastIndexOf("/") + 1);
      const rest = { ...value };
      delete rest["@type"];
      const payload = isWellKnown(inner) && inner !== "google.protobuf.Empty"
        ? encodeMessage(rest.value, inner, registry) : encodeMessage(rest, inner, registry);
      w.bytes(1, utf8.encode(url));
      w.bytes(2, payload);
      return w.finish();
    }
    default: {
      const type = WRAPPER_TYPES[typeName];
      writeScalar(w, 1, type, value, "", registry, typeName);
      return w.finish();
    }
  }
}

function isWellKnown(typeName) {
  return typeName in WRAPPER_TYPES || [
    "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask",
    "google.protobuf.Struct", "google.protobuf.ListValue", "google.protobuf.Value", "google.protobuf.Any",
  ].includes(typeName);
}

// Encodes `json` (a value of the proto3 JSON mapping) as message `typeName`. Throws an Error naming
// the field for a value it cannot encode, or a field the type does not have.
export function encodeMessage(json, typeName, registry) {
  if (isWellKnown(typeName)) return encodeWellKnown(typeName, json, registry);
  const type = registry.get(typeName);
  if (!type || type.kind !== "message") throw new Error(`unknown message type ${typeName}`);
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new Error(`${typeName}: not a JSON object`);
  }
  const w = new Writer();
  for (const [key, value] of Object.entries(json)) {
    const field = type.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field) throw new Error(`${typeName} has no field ${key}`);
    if (value === null && field.typeName !== "google.protobuf.Value") continue;
    const what = `${typeName}.${field.name}`;
    const entry = field.type === 11 && registry.get(field.typeName);
    if (entry && entry.mapEntry) {
      const [keyField, valueField] = entry.fields;
      for (const [k, v] of Object.entries(value)) {
        const e = new Writer();
        writeScalar(e, 1, keyField.type, keyField.type === 8 ? k === "true" : k, "", registry, what);
        writeValue(e, valueField, v, registry, what);
        w.bytes(field.number, e.finish());
      }
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw new Error(`${what}: not a JSON array`);
      for (const v of value) writeValue(w, field, v, registry, what);
    } else {
      writeValue(w, field, value, registry, what);
    }
  }
  return w.finish();
}

function writeValue(w, field, value, registry, what) {
  if (field.type !== 11) {
    writeScalar(w, field.number, field.type, value, field.typeName, registry, what);
    return;
  }
  let bytes;
  try {
    bytes = encodeMessage(value, field.typeName, registry);
  } catch (e) {
    throw new Error(`${what}: ${e.message}`);
  }
  w.bytes(field.number, bytes);
}

// Decodes `bytes` as message `typeName` into the proto3 JSON mapping (maps as objects, the
// well-known types in their JSON forms); fields the descriptors do not name are shown by number.
export function decodeMessage(bytes, typeName, registry) {
  return toProtoJson(decodeMessageValue(bytes, typeName, registry), typeName, registry);
}

// The JSON of a scalar field's default value (a map entry may leave its value out).
function scalarDefault(field, registry) {
  if (field.type === 8) return false;
  if (field.type === 9 || field.type === 12) return "";
  if (field.type === 14) return registry.get(field.typeName)?.values.find((v) => v.number === 0)?.name ?? 0;
  return [3, 4, 6, 16, 18].includes(field.type) ? "0" : 0;
}

function fraction(nanos) {
  if (!nanos) return "";
  const digits = String(nanos).padStart(9, "0");
  return "." + (digits.endsWith("000000") ? digits.substring(0, 3) : digits.endsWith("000") ? digits.substring(0, 6) : digits);
}

// Turns what decodeMessageValue read (fields by JSON name, maps as entries) into proto3 JSON.
function toProtoJson(value, typeName, registry) {
  switch (typeName) {
    case "google.protobuf.Timestamp": {
      const iso = new Date(Number(value.seconds || 0) * 1000).toISOString();
      return iso.replace(/\.\d{3}Z$/, fraction(value.nanos) + "Z");
    }
    case "google.protobuf.Duration": {
      const seconds = BigInt(value.seconds || 0);
      const nanos = value.nanos || 0;
      const negative = seconds < 0n || nanos < 0;
      const abs = (n) => (n < 0 ? -n : n);
      return `${negative ? "-" : ""}${abs(seconds)}${fraction(abs(nanos))}s`;
    }
    case "google.protobuf.FieldMask":
      return (value.paths || []).map((p) => p.replace(/_([a-z])/g, (_, c) => c.toUpperCase())).join(",");
    case "google.protobuf.Struct":
      return Object.fromEntries((value.fields || []).map((e) =>
        [e.key || "", toProtoJson(e.value || {}, "google.protobuf.Value", registry)]));
    case "google.protobuf.ListValue":
      return (value.values || []).map((v) => toProtoJson(v, "google.protobuf.Value", registry));
    case "google.protobuf.Value":
      if ("structValue" in value) return toProtoJson(value.structValue, "google.protobuf.Struct", registry);
      if ("listValue" in value) return toProtoJson(value.listValue, "google.protobuf.ListValue", registry);
      if ("numberValue" in value) return value.numberValue;
      if ("stringValue" in value) return value.stringValue;
      if ("boolValue" in value) return value.boolValue;
      return null;
    case "google.protobuf.Any": {
      const url = value.typeUrl || "";
      const inner = url.substring(url.lastIndexOf("/") + 1);
      if (!registry.has(inner) && !isWellKnown(inner)) return { "@type": url, value: value.value };
      const decoded = decodeMessage(base64ToBytes(value.value || ""), inner, registry);
      return isWellKnown(inner) ? { "@type": url, value: decoded } : { "@type": url, ...decoded };
    }
    default:
      break;
  }
  if (typeName in WRAPPER_TYPES) {
    const type = WRAPPER_TYPES[typeName];
    return value.value ?? ([3, 4].includes(type) ? "0" : type === 8 ? false : [9, 12].includes(type) ? "" : 0);
  }
  const type = registry.get(typeName);
  if (!type) return value;
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    const field = type.fields.find((f) => f.jsonName === key);
    const entry = field && field.type === 11 && registry.get(field.typeName);
    if (entry && entry.mapEntry) {
      const valueField = entry.fields[1];
      out[key] = Object.fromEntries(v.map((e) => [String(e.key ?? ""),
        valueField.type === 11 ? toProtoJson(e.value || {}, valueField.typeName, registry)
          : e.value ?? scalarDefault(valueField, registry)]));
    } else if (field && field.type === 11) {
      out[key] = field.repeated ? v.map((m) => toProtoJson(m, field.typeName, registry))
        : toProtoJson(v, field.typeName, registry);
    } else {
      out[key] = v;
    }
  }
  return out;
}
