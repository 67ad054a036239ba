// The page's script: calls the route guide server from the browser with connect-es, once per
// transport, and writes one line of JSON per transport into <pre id="results">, then sets its
// data-state to "done" (what the test's browser driver waits for).
//
// The server's address comes from the page's query, ?server=http://127.0.0.1:PORT: the page is
// served from another origin, so every call is a cross-origin request the server must allow (CORS).

import { toJson } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { FeatureSchema, RouteGuide } from "./gen/routeguide/route_guide_pb";

const server = new URLSearchParams(location.search).get("server") ?? "http://127.0.0.1:50051";

// Every call gets a deadline, so a server that never answers ends the page with an error rather
// than leaving it running.
const callOptions = { timeoutMs: 10_000 };

const transports: Record<string, Transport> = {
  // Connect, unary and streaming, with JSON bodies (connect-es's default).
  "connect-json": createConnectTransport({ baseUrl: server }),
  // Connect with binary protobuf bodies.
  "connect-proto": createConnectTransport({ baseUrl: server, useBinaryFormat: true }),
  // Connect's GET for side-effect-free methods: GetFeature is declared NO_SIDE_EFFECTS in
  // route_guide.proto, so its request travels in the URL's query; ListFeatures still POSTs.
  "connect-get": createConnectTransport({ baseUrl: server, useHttpGet: true }),
  // gRPC-Web (binary), trailers in the response body.
  "grpc-web": createGrpcWebTransport({ baseUrl: server }),
};

/** What a failed call shows: its code's name and message, e.g. "Unknown: Failed to fetch". */
function failure(e: unknown): { error: string } {
  const err = ConnectError.from(e);
  return { error: `${Code[err.code]}: ${err.rawMessage}` };
}

async function callRouteGuide(name: string, transport: Transport): Promise<string> {
  const client = createClient(RouteGuide, transport);
  const line: Record<string, unknown> = { transport: name };
  try {
    // Unary: what is at Tower Bridge?
    const feature = await client.getFeature(
      { latitude: 515055000, longitude: -754000 },
      callOptions,
    );
    line.getFeature = toJson(FeatureSchema, feature);
  } catch (e) {
    line.getFeature = failure(e);
  }
  try {
    // Server streaming: the features on the South Bank, as they arrive.
    const names: string[] = [];
    const stream = client.listFeatures(
      {
        lo: { latitude: 515070000, longitude: -1000000 },
        hi: { latitude: 515100000, longitude: -970000 },
      },
      callOptions,
    );
    for await (const feature of stream) {
      names.push(feature.name);
    }
    line.listFeatures = names;
  } catch (e) {
    line.listFeatures = failure(e);
  }
  return JSON.stringify(line);
}

async function main(): Promise<void> {
  document.getElementById("server")!.textContent = server;
  const results = document.getElementById("results")!;
  const lines = await Promise.all(
    Object.entries(transports).map(([name, transport]) => callRouteGuide(name, transport)),
  );
  results.textContent = lines.join("\n") + "\n";
  results.dataset.state = "done";
}

main().catch((e) => {
  const results = document.getElementById("results")!;
  results.textContent = `page failed: ${e}\n`;
  results.dataset.state = "done";
});
