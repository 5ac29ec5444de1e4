// The npm package's own API in Node (packages/dynalab, built by scripts/npm-package): operations
// by name, DynamoDB's errors as typed errors, the capacity arithmetic, snapshots, the lab clock and
// TTL, and `check`/`compare` giving the command line's report. Usage: node package.mjs
import { readFileSync } from "node:fs";
import { deepStrictEqual } from "node:assert";
import {
  Engine, DynamoDBError, DesignError, check, compare, operations, version, clientConfig,
} from "../../packages/dynalab/index.node.js";
import { DynamoDBClient, ScanCommand, ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, PutCommand, GetCommand } from "@aws-sdk/lib-dynamodb";

let passed = 0, failed = 0;
const check_ = (name, ok, detail = "") => { if (ok) passed++; else { failed++; console.log(`FAILED: ${name} ${detail}`); } };
const throws = (f) => { try { f(); return undefined; } catch (e) { return e; } };
const root = new URL("../../", import.meta.url);

const start = Date.UTC(2026, 0, 1);
const engine = new Engine({ now: start });
engine.execute("CreateTable", {
  TableName: "sessions", BillingMode: "PAY_PER_REQUEST",
  AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "N" }],
  KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
});
engine.execute("UpdateTimeToLive", { TableName: "sessions", TimeToLiveSpecification: { Enabled: true, AttributeName: "expires" } });
for (let i = 0; i < 10; i++) {
  engine.execute("PutItem", { TableName: "sessions", Item: { pk: { S: "u1" }, sk: { N: String(i) }, expires: { N: String(start / 1000 + 60 * (i + 1)) }, blob: { S: "x".repeat(1000) } } });
}
const page = engine.execute("Query", { TableName: "sessions", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: { ":p": { S: "u1" } },
  Limit: 4, ReturnConsumedCapacity: "TOTAL" });
check_("execute returns the response object", page.Count === 4 && page.LastEvaluatedKey.sk.N === "3", JSON.stringify(page.LastEvaluatedKey));
check_("4 items of ~1 KB: 1 RCU eventually consistent", page.ConsumedCapacity.CapacityUnits === 1, JSON.stringify(page.ConsumedCapacity));

const failedPut = throws(() => engine.execute("PutItem", { TableName: "sessions", Item: { pk: { S: "u1" }, sk: { N: "1" } },
  ConditionExpression: "attribute_not_exists(pk)", ReturnValuesOnConditionCheckFailure: "ALL_OLD" }));
check_("a failed condition throws a DynamoDBError named as DynamoDB names it", failedPut instanceof DynamoDBError
  && failedPut.name === "ConditionalCheckFailedException" && failedPut.message === "The conditional request failed"
  && failedPut.statusCode === 400 && failedPut.Item?.sk?.N === "1", `${failedPut?.name} ${failedPut?.message}`);
const invalid = throws(() => engine.execute("Query", { TableName: "sessions", KeyConditionExpression: "pk = :p" }));
check_("validation errors carry DynamoDB's message", invalid?.name === "ValidationException"
  && invalid.message === "Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute value: :p", invalid?.message);
const unknown = throws(() => engine.execute("CreateBackup", {}));
check_("an operation the engine does not run", unknown?.name === "UnknownOperationException", unknown?.message);
const malformed = throws(() => engine.execute("GetItem", "{not json"));
check_("a malformed request is a SerializationException", malformed?.name === "SerializationException", malformed?.name);

const explained = engine.explain("GetItem", { TableName: "sessions", Key: { pk: { S: "u1" }, sk: { N: "2" } }, ConsistentRead: true });
check_("explain: the response and the arithmetic", explained.response.Item.sk.N === "2" && explained.error === undefined
  && explained.capacity.length === 1 && /B → 1 × 4 KB = 1 RCU$/.test(explained.capacity[0].arithmetic), JSON.stringify(explained.capacity));
const explainedFailure = engine.explain("PutItem", { TableName: "sessions", Item: { pk: { S: "u1" }, sk: { N: "2" } }, ConditionExpression: "attribute_not_exists(pk)" });
check_("explain: a failed condition comes back as the error, with what the response reports (nothing)",
  explainedFailure.error instanceof DynamoDBError && explainedFailure.error.name === "ConditionalCheckFailedException"
  && explainedFailure.response === undefined && Array.isArray(explainedFailure.capacity), JSON.stringify(explainedFailure));

const snapshot = engine.snapshot();
const copy = Engine.restore(snapshot, { now: start });
const counted = (e) => e.execute("Scan", { TableName: "sessions", Select: "COUNT" }).Count;
check_("a snapshot restores every item", counted(copy) === 10);
copy.execute("DeleteItem", { TableName: "sessions", Key: { pk: { S: "u1" }, sk: { N: "0" } } });
check_("a restored engine is independent", counted(copy) === 9 && counted(engine) === 10);
const damaged = throws(() => Engine.restore(snapshot.slice(0, snapshot.length / 2)));
check_("a damaged snapshot is refused", damaged?.name === "SnapshotError", damaged?.message);

check_("the lab clock starts where it was set", engine.now() === start);
const expired = engine.advanceClock(5 * 60 * 1000 + 1);
check_("advancing the clock runs TTL: 5 sessions expired", expired === 5 && counted(engine) === 5, `${expired}`);
check_("operations are the engine's list", operations().includes("TransactWriteItems") && operations().includes("GetRecords") && operations().includes("SearchVectors") && operations().length === 32);
const vectors = new Engine({ now: start });
vectors.execute("CreateTable", { TableName: "docs", BillingMode: "PAY_PER_REQUEST",
  AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }], KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
  VectorIndexes: [{ IndexName: "near", VectorAttribute: { AttributeName: "v" }, Dimensions: 2, DistanceFunction: "DOT_PRODUCT", Projection: { ProjectionType: "KEYS_ONLY" } }] });
for (const [pk, x, y] of [["a", "1", "0"], ["b", "0.5", "0.5"], ["c", "-1", "0"]]) {
  vectors.execute("PutItem", { TableName: "docs", Item: { pk: { S: pk }, v: { L: [{ N: x }, { N: y }] } } });
}
const found = vectors.execute("SearchVectors", { TableName: "docs", IndexName: "near", SearchVector: [{ N: "1" }, { N: "0" }], TopK: 2 });
check_("SearchVectors ranks by dot product, highest first", JSON.stringify(found.SearchResults)
  === JSON.stringify([{ Item: { pk: { S: "a" } }, Score: 1 }, { Item: { pk: { S: "b" } }, Score: 0.5 }]), JSON.stringify(found));
const wrongSize = throws(() => vectors.execute("SearchVectors", { TableName: "docs", IndexName: "near", SearchVector: [{ N: "1" }], TopK: 1 }));
check_("a query vector of another size is DynamoDB's ValidationException", wrongSize instanceof DynamoDBError
  && wrongSize.message === "Input search vector dimension 1 does not match vector index dimension 2", wrongSize?.message);
check_("version", version() === JSON.parse(readFileSync(new URL("packages/dynalab/package.json", root))).version);

// The SDK's document client through the handler, on the same engine.
const doc = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(engine)));
await doc.send(new PutCommand({ TableName: "sessions", Item: { pk: "u2", sk: 1, tags: new Set(["a"]) } }));
const got = await doc.send(new GetCommand({ TableName: "sessions", Key: { pk: "u2", sk: 1 } }));
check_("the document client sees the engine's items", got.Item.tags.has("a") && engine.execute("GetItem", { TableName: "sessions", Key: { pk: { S: "u2" }, sk: { N: "1" } } }).Item.pk.S === "u2");
const sdkError = await doc.send(new PutCommand({ TableName: "sessions", Item: { pk: "u2", sk: 1 }, ConditionExpression: "attribute_not_exists(pk)" })).catch((e) => e);
check_("the SDK's typed exception", sdkError instanceof ConditionalCheckFailedException);
const aborted = await new DynamoDBClient(clientConfig(engine)).send(new ScanCommand({ TableName: "sessions" }), { abortSignal: AbortSignal.abort() }).catch((e) => e);
check_("an aborted request is not run", aborted?.name === "AbortError", aborted?.name);

// The design check: the same report as `dynalab check --format json` (the examples' goldens).
for (const name of ["orders-service", "hot-counter", "hot-counter-sharded", "task-board"]) {
  const result = check(readFileSync(new URL(`examples/${name}.workbook.json`, root), "utf8"));
  const golden = JSON.parse(readFileSync(new URL(`examples/${name}.report.json`, root), "utf8"));
  let same = true;
  try { deepStrictEqual(result.report, golden); } catch { same = false; }
  check_(`check(${name}) gives the command line's report`, same && result.verdict === golden.verdict && result.markdown.startsWith("# "), result.verdict);
}
const parsed = check(JSON.parse(readFileSync(new URL("examples/hot-counter.workbook.json", root), "utf8")));
check_("check takes a design object as well as its text", parsed.verdict === "fail");
const compared = compare(readFileSync(new URL("examples/hot-counter.workbook.json", root), "utf8"),
  readFileSync(new URL("examples/hot-counter-sharded.workbook.json", root), "utf8"));
check_("compare: both designs and the rows", compared.report.a.name !== undefined && compared.report.patterns.length > 0 && compared.markdown.length > 0);
const notChecked = throws(() => check("{\"format\": \"dynalab-workbook/1\", \"name\": \"x\", \"tables\": [], \"patterns\": []}"));
check_("a design with nothing to check is a DesignError listing why", notChecked instanceof DesignError && notChecked.problems.length === 1
  && /no DynamoDB tables/.test(notChecked.problems[0]), notChecked?.message);
const shop = check(readFileSync(new URL("tests/designs/workbench-online-shop-facets.json", root), "utf8"));
check_("a design without access patterns is reported, proves nothing and says what the import left out, as the command line does",
  shop.report.proven === false && shop.verdict === "pass" && shop.report.patterns.every((p) => p.proposed)
  && shop.report.inventory.tables[0].indexes.length === 1 && /nothing proven/.test(shop.markdown.split("\n")[0])
  && shop.notes.some((n) => n.includes("facet `OrderItem` describes a view")), JSON.stringify(shop?.notes));
const mcp = check(readFileSync(new URL("tests/designs/mcp-ecommerce.json", root), "utf8"));
check_("an MCP data model checks from JavaScript", /MCP server data model/.test(mcp.source) && mcp.report.patterns.length > 0, mcp.source);

console.log(`npm package: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
