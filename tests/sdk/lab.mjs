// What the JavaScript scenarios share: a client and a document client with throwaway credentials,
// one attempt per call, and a tally of checks. The first argument is the endpoint, or `in-process`
// for the npm package's engine in this process (its SDK request handler; packages/dynalab, built by
// scripts/npm-package). With TRANSCRIPT=FILE every call's command, input and output (or error) is
// written to FILE, so two runs can be compared answer by answer.
import { writeFileSync } from "node:fs";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

export const endpoint = process.argv[2];
export const inProcess = endpoint === "in-process";
const dynalab = inProcess ? await import("../../packages/dynalab/index.node.js") : undefined;
/** The engine the in-process clients share (undefined against an endpoint). */
export const engine = inProcess ? new dynalab.Engine() : undefined;

/** Options for another client of the same kind (e.g. DynamoDBStreamsClient) on the same target. */
export function clientOptions() {
  const lab = { region: "us-east-1", credentials: { accessKeyId: "lab", secretAccessKey: "lab" }, maxAttempts: 1 };
  return inProcess ? dynalab.clientConfig(engine, lab) : { ...lab, endpoint };
}

const transcript = [];
/** Records what every call of `client` answered, minus the per-request metadata. */
export function recorded(client) {
  client.middlewareStack.add((next, context) => async (args) => {
    try {
      const result = await next(args);
      const { $metadata, ...output } = result.output;
      transcript.push({ command: context.commandName, input: args.input, output });
      return result;
    } catch (error) {
      transcript.push({ command: context.commandName, input: args.input,
        error: { name: error.name, message: error.message, CancellationReasons: error.CancellationReasons, Item: error.Item } });
      throw error;
    }
  }, { step: "initialize", name: "dynalabTranscript" });
  return client;
}

export const client = recorded(new DynamoDBClient(clientOptions()));
export const doc = DynamoDBDocumentClient.from(client);

// The two runs start at different times: what the wall clock makes (dates, table ids, stream
// labels and the ARNs that carry them) is written as a placeholder; everything else must match.
const CLOCK_MADE = new Set(["TableId", "StreamLabel", "LatestStreamLabel", "StreamArn", "LatestStreamArn", "ShardIterator", "NextShardIterator", "ShardId", "eventID"]);
function replacer(key, value) {
  if (this[key] instanceof Date || CLOCK_MADE.has(key)) return "(from the clock)";
  if (value instanceof Set) return { set: [...value].sort() };
  if (value instanceof Uint8Array) return { bytes: [...value] };
  if (typeof value === "bigint") return value.toString();
  return value;
}

export function checks() {
  let passed = 0, failed = 0;
  const check = (name, ok) => { if (ok) passed++; else { failed++; console.log(`FAILED: ${name}`); } };
  check.finish = (label) => {
    if (process.env.TRANSCRIPT) writeFileSync(process.env.TRANSCRIPT, JSON.stringify(transcript, replacer, 1));
    console.log(`${label}${inProcess ? " (in-process)" : ""}: ${passed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
  };
  return check;
}
