// A small protobuf binary reader, enough to decode the descriptors reflection sends
// (FileDescriptorProto: messages, fields, oneofs, map entries, enums, services, comments)
// and, with them, the messages of error details. No library: see docs/console.md.

const utf8 = new TextDecoder();

export class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.pos = 0;
  }

  done() {
    return this.pos >= this.bytes.length;
  }

  // A varint as a Number (exact up to 2^53, which covers tags, lengths and descriptor numbers).
  varint() {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.bytes.length) throw new Error("truncated varint");
      const b = this.bytes[this.pos++];
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
      if (scale > 2 ** 70) throw new Error("varint too long");
    }
  }

  // A varint as a BigInt, for 64-bit values.
  varint64() {
    let value = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.bytes.length) throw new Error("truncated varint");
      const b = this.bytes[this.pos++];
      value |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
      shift += 7n;
      if (shift > 63n) throw new Error("varint too long");
    }
  }

  fixed(n) {
    if (this.pos + n > this.bytes.length) throw new Error("truncated fixed field");
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, n);
    this.pos += n;
    return view;
  }

  bytesField() {
    const n = this.varint();
    if (this.pos + n > this.bytes.length) throw new Error("truncated length-delimited field");
    const value = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return value;
  }

  string() {
    return utf8.decode(this.bytesField());
  }

  skip(wireType) {
    switch (wireType) {
      case 0: this.varint64(); break;
      case 1: this.fixed(8); break;
      case 2: this.bytesField(); break;
      case 5: this.fixed(4); break;
      default: throw new Error(`unsupported wire type ${wireType}`);
    }
  }
}

// Calls handlers[fieldNumber](reader, wireType) for each field of `bytes`; skips the others.
export function readFields(bytes, handlers) {
  const r = new Reader(bytes);
  while (!r.done()) {
    const tag = r.varint();
    const number = Math.floor(tag / 8);
    const wireType = tag & 7;
    const handler = handlers[number];
    if (handler) handler(r, wireType);
    else r.skip(wireType);
  }
}

export function base64ToBytes(text) {
  const normal = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(normal + "===".slice((normal.length + 3) % 4));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

// Packed or not: the int32 values of a repeated field.
function int32s(r, wireType, into) {
  if (wireType === 2) {
    const inner = new Reader(r.bytesField());
    while (!inner.done()) into.push(inner.varint());
  } else {
    into.push(r.varint());
  }
}

// FieldDescriptorProto.Type numbers, by name as the page shows them.
export const TYPE_NAMES = {
  1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32",
  8: "bool", 9: "string", 10: "group", 11: "message", 12: "bytes", 13: "uint32", 14: "enum",
  15: "sfixed32", 16: "sfixed64", 17: "sint32", 18: "sint64",
};

// Decodes a FileDescriptorProto into plain objects and adds its types to `registry`
// (a Map from full name to {kind: "message"|"enum", ...}); returns the file's summary.
export function decodeFile(bytes, registry) {
  const file = { name: "", pkg: "", dependencies: [], messages: [], enums: [], services: [] };
  const comments = new Map();
  readFields(bytes, {
    1: (r) => { file.name = r.string(); },
    2: (r) => { file.pkg = r.string(); },
    3: (r) => { file.dependencies.push(r.string()); },
    4: (r) => { file.messages.push(r.bytesField()); },
    5: (r) => { file.enums.push(r.bytesField()); },
    6: (r) => { file.services.push(r.bytesField()); },
    9: (r) => readSourceInfo(r.bytesField(), comments),
  });
  const scope = file.pkg ? file.pkg + "." : "";
  const comment = (path) => comments.get(path.join(".")) || "";
  file.messages = file.messages.map((m, i) => decodeMessage(m, scope, [4, i], comment, registry, file.name));
  file.enums = file.enums.map((e, i) => decodeEnum(e, scope, [5, i], comment, registry, file.name));
  file.services = file.services.map((s, i) => decodeService(s, scope, [6, i], comment, file.name));
  return file;
}

function readSourceInfo(bytes, comments) {
  readFields(bytes, {
    1: (r) => {
      const path = [];
      let leading = "";
      let trailing = "";
      readFields(r.bytesField(), {
        1: (lr, wt) => int32s(lr, wt, path),
        3: (lr) => { leading = lr.string(); },
        4: (lr) => { trailing = lr.string(); },
      });
      const text = (leading + trailing).trim();
      if (text) comments.set(path.join("."), text);
    },
  });
}

function decodeMessage(bytes, scope, path, comment, registry, fileName) {
  const message = {
    kind: "message", name: "", fullName: "", fields: [], oneofs: [], mapEntry: false,
    comment: comment(path), file: fileName,
  };
  const nested = [];
  const enums = [];
  readFields(bytes, {
    1: (r) => { message.name = r.string(); },
    2: (r) => { message.fields.push(r.bytesField()); },
    3: (r) => { nested.push(r.bytesField()); },
    4: (r) => { enums.push(r.bytesField()); },
    7: (r) => readFields(r.bytesField(), { 7: (or) => { message.mapEntry = or.varint() !== 0; } }),
    8: (r) => {
      let name = "";
      readFields(r.bytesField(), { 1: (orr) => { name = orr.string(); } });
      message.oneofs.push(name);
    },
  });
  message.fullName = scope + message.name;
  message.fields = message.fields.map((f, i) => decodeField(f, comment([...path, 2, i])));
  registry.set(message.fullName, message);
  const inner = message.fullName + ".";
  nested.forEach((m, i) => decodeMessage(m, inner, [...path, 3, i], comment, registry, fileName));
  enums.forEach((e, i) => decodeEnum(e, inner, [...path, 4, i], comment, registry, fileName));
  return message;
}

function decodeField(bytes, comment) {
  const field = {
    name: "", number: 0, label: 1, type: 0, typeName: "", oneofIndex: -1, jsonName: "",
    proto3Optional: false, comment,
  };
  readFields(bytes, {
    1: (r) => { field.name = r.string(); },
    3: (r) => { field.number = r.varint(); },
    4: (r) => { field.label = r.varint(); },
    5: (r) => { field.type = r.varint(); },
    6: (r) => { field.typeName = r.string().replace(/^\./, ""); },
    9: (r) => { field.oneofIndex = r.varint(); },
    10: (r) => { field.jsonName = r.string(); },
    17: (r) => { field.proto3Optional = r.varint() !== 0; },
  });
  field.repeated = field.label === 3;
  if (!field.jsonName) field.jsonName = field.name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
  return field;
}

function decodeEnum(bytes, scope, path, comment, registry, fileName) {
  const en = { kind: "enum", name: "", fullName: "", values: [], comment: comment(path), file: fileName };
  readFields(bytes, {
    1: (r) => { en.name = r.string(); },
    2: (r) => {
      const value = { name: "", number: 0 };
      readFields(r.bytesField(), {
        1: (vr) => { value.name = vr.string(); },
        2: (vr) => { value.number = Number(BigInt.asIntN(32, vr.varint64())); },
      });
      en.values.push(value);
    },
  });
  en.fullName = scope + en.name;
  registry.set(en.fullName, en);
  return en;
}

function decodeService(bytes, scope, path, comment, fileName) {
  const service = { name: "", fullName: "", methods: [], comment: comment(path), file: fileName };
  const methods = [];
  readFields(bytes, {
    1: (r) => { service.name = r.string(); },
    2: (r) => { methods.push(r.bytesField()); },
  });
  service.fullName = scope + service.name;
  service.methods = methods.map((m, i) => {
    const method = {
      name: "", input: "", output: "", clientStreaming: false, serverStreaming: false,
      comment: comment([...path, 2, i]), service: service.fullName,
    };
    readFields(m, {
      1: (r) => { method.name = r.string(); },
      2: (r) => { method.input = r.string().replace(/^\./, ""); },
      3: (r) => { method.output = r.string().replace(/^\./, ""); },
      5: (r) => { method.clientStreaming = r.varint() !== 0; },
      6: (r) => { method.serverStreaming = r.varint() !== 0; },
    });
    method.fullName = service.fullName + "/" + method.name;
    method.callType = method.clientStreaming
      ? (method.serverStreaming ? "bidi streaming" : "client streaming")
      : (method.serverStreaming ? "server streaming" : "unary");
    return method;
  });
  return service;
}

// Decodes `bytes` as message `typeName` into a plain object keyed by JSON names, using the
// registry; fields it cannot name are shown by number. For error details.
export function decodeMessageValue(bytes, typeName, registry) {
  const type = registry.get(typeName);
  const out = {};
  const r = new Reader(bytes);
  const add = (field, key, value) => {
    if (field && field.repeated) (out[key] = out[key] || []).push(value);
    else out[key] = value;
  };
  while (!r.done()) {
    const tag = r.varint();
    const number = Math.floor(tag / 8);
    const wireType = tag & 7;
    const field = type && type.fields.find((f) => f.number === number);
    const key = field ? field.jsonName : `#${number}`;
    if (wireType === 2) {
      const data = r.bytesField();
      if (field && field.type === 9) add(field, key, utf8.decode(data));
      else if (field && field.type === 11) add(field, key, decodeMessageValue(data, field.typeName, registry));
      else if (field && field.type === 12) add(field, key, btoa(String.fromCharCode(...data)));
      else if (!field) add(field, key, printableOrBase64(data));
      else {
        // A packed repeated scalar: its values one after another, each as its type's wire type.
        const inner = new Reader(data);
        const packedWireType = [1, 6, 16].includes(field.type) ? 1 : [2, 7, 15].includes(field.type) ? 5 : 0;
        while (!inner.done()) add(field, key, scalar(inner, packedWireType, field, registry));
      }
    } else if (wireType === 0 || wireType === 1 || wireType === 5) {
      add(field, key, scalar(r, wireType, field, registry));
    } else {
      r.skip(wireType);
    }
  }
  return out;
}

// One scalar value of `field` (which may be unknown), as the proto3 JSON mapping writes it.
function scalar(r, wireType, field, registry) {
  const type = field ? field.type : 0;
  if (wireType === 1) {
    const view = r.fixed(8);
    if (type === 1) return view.getFloat64(0, true);
    return String(type === 16 ? view.getBigInt64(0, true) : view.getBigUint64(0, true));
  }
  if (wireType === 5) {
    const view = r.fixed(4);
    if (type === 2) return view.getFloat32(0, true);
    return type === 15 ? view.getInt32(0, true) : view.getUint32(0, true);
  }
  const raw = r.varint64();
  switch (type) {
    case 8: return raw !== 0n;
    case 14: return enumName(registry.get(field.typeName), Number(BigInt.asIntN(32, raw)));
    case 5: return Number(BigInt.asIntN(32, raw));
    case 13: return Number(BigInt.asUintN(32, raw));
    case 17: return Number((raw >> 1n) ^ -(raw & 1n));
    case 18: return String((raw >> 1n) ^ -(raw & 1n));
    case 3: return String(BigInt.asIntN(64, raw));
    default: return String(raw);
  }
}

function enumName(en, number) {
  const value = en && en.values.find((v) => v.number === number);
  return value ? value.name : number;
}

function printableOrBase64(data) {
  const text = utf8.decode(data);
  return /^[\x20-\x7e\n\t]*$/.test(text) ? text : btoa(String.fromCharCode(...data));
}

// The error detail messages of google/rpc/error_details.proto that servers send most, described
// here so the page decodes them even when reflection does not serve that file.
function detailType(fullName, fields) {
  return {
    kind: "message", name: fullName.split(".").pop(), fullName, oneofs: [], mapEntry: false,
    fields: fields.map(([jsonName, number, type, typeName = "", repeated = false]) =>
      ({ name: jsonName, jsonName, number, type, typeName, repeated, label: repeated ? 3 : 1, oneofIndex: -1 })),
  };
}

export const ERROR_DETAIL_TYPES = new Map([
  detailType("google.rpc.BadRequest", [["fieldViolations", 1, 11, "google.rpc.BadRequest.FieldViolation", true]]),
  detailType("google.rpc.BadRequest.FieldViolation", [["field", 1, 9], ["description", 2, 9], ["reason", 3, 9]]),
  detailType("google.rpc.ErrorInfo", [["reason", 1, 9], ["domain", 2, 9], ["metadata", 3, 11, "google.rpc.ErrorInfo.MetadataEntry", true]]),
  detailType("google.rpc.ErrorInfo.MetadataEntry", [["key", 1, 9], ["value", 2, 9]]),
  detailType("google.rpc.RetryInfo", [["retryDelay", 1, 11, "google.protobuf.Duration"]]),
  detailType("google.protobuf.Duration", [["seconds", 1, 3], ["nanos", 2, 5]]),
  detailType("google.rpc.DebugInfo", [["stackEntries", 1, 9, "", true], ["detail", 2, 9]]),
  detailType("google.rpc.LocalizedMessage", [["locale", 1, 9], ["message", 2, 9]]),
  detailType("google.rpc.PreconditionFailure", [["violations", 1, 11, "google.rpc.PreconditionFailure.Violation", true]]),
  detailType("google.rpc.PreconditionFailure.Violation", [["type", 1, 9], ["subject", 2, 9], ["description", 3, 9]]),
  detailType("google.rpc.ResourceInfo", [["resourceType", 1, 9], ["resourceName", 2, 9], ["owner", 3, 9], ["description", 4, 9]]),
].map((t) => [t.fullName, t]));
