// Runs the console's protobuf reader (pb.js) outside the browser for PbReaderTest:
//   node check-pb.mjs FILE_DESCRIPTOR_BASE64 VALUE_BASE64 VALUE_TYPE DETAIL_BASE64
// and prints what it decoded as JSON.

import { base64ToBytes, decodeFile, decodeMessageValue, ERROR_DETAIL_TYPES } from
  "../../main/resources/dev/tern/console/assets/v1/pb.js";

const [file, value, valueType, detail] = process.argv.slice(2);
const registry = new Map();
const decoded = decodeFile(base64ToBytes(file), registry);
const types = [...registry.values()].map((t) => t.kind === "enum"
  ? { enum: t.fullName, comment: t.comment, values: t.values }
  : {
    message: t.fullName, comment: t.comment, mapEntry: t.mapEntry, oneofs: t.oneofs,
    fields: t.fields.map((f) => [f.number, f.jsonName, f.type, f.typeName, f.repeated, f.oneofIndex, f.proto3Optional, f.comment]),
  });
process.stdout.write(JSON.stringify({
  name: decoded.name,
  pkg: decoded.pkg,
  dependencies: decoded.dependencies,
  services: decoded.services.map((s) => ({
    service: s.fullName, comment: s.comment,
    methods: s.methods.map((m) => [m.fullName, m.callType, m.input, m.output, m.comment]),
  })),
  types,
  value: decodeMessageValue(base64ToBytes(value), valueType, registry),
  detail: decodeMessageValue(base64ToBytes(detail), "google.rpc.BadRequest", ERROR_DETAIL_TYPES),
}) + "\n");
