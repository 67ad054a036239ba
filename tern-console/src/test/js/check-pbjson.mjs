// Runs the console's binary <-> JSON mapping (pbjson.js) outside the browser for PbJsonTest:
//   node check-pbjson.mjs TYPE JSON VALUE_BASE64 FILE_DESCRIPTOR_BASE64...
// encodes JSON as message TYPE and decodes VALUE_BASE64 (bytes protobuf-java wrote) as TYPE, with
// the registry of the given files; prints {"encoded": BASE64, "decoded": JSON} or {"error": ...}.

import { base64ToBytes, decodeFile } from "../../main/resources/dev/tern/console/assets/v1/pb.js";
import { decodeMessage, encodeMessage } from "../../main/resources/dev/tern/console/assets/v1/pbjson.js";

const [type, json, value, ...files] = process.argv.slice(2);
const registry = new Map();
for (const file of files) decodeFile(base64ToBytes(file), registry);
let out;
try {
  const encoded = encodeMessage(JSON.parse(json), type, registry);
  out = {
    encoded: btoa(String.fromCharCode(...encoded)),
    decoded: decodeMessage(base64ToBytes(value), type, registry),
  };
} catch (e) {
  out = { error: e.message };
}
process.stdout.write(JSON.stringify(out) + "\n");
