// What the JavaScript scenarios share: a client and a document client with throwaway credentials
// against the endpoint given as the first argument, one attempt per call, and a tally of checks.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

export const endpoint = process.argv[2];
export const client = new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "lab", secretAccessKey: "lab" }, maxAttempts: 1 });
export const doc = DynamoDBDocumentClient.from(client);

export function checks() {
  let passed = 0, failed = 0;
  const check = (name, ok) => { if (ok) passed++; else { failed++; console.log(`FAILED: ${name}`); } };
  check.finish = (label) => {
    console.log(`${label}: ${passed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
  };
  return check;
}
