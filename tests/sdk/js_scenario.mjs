// The AWS SDK for JavaScript v3 against `dynalab serve`: paginators, the document client,
// transactions with cancellation reasons, typed errors. Usage: node js_scenario.mjs http://127.0.0.1:PORT
import {
  CreateTableCommand, DeleteTableCommand, paginateQuery, waitUntilTableExists,
  ConditionalCheckFailedException, TransactionCanceledException, ResourceNotFoundException, DescribeTableCommand,
} from "@aws-sdk/client-dynamodb";
import { PutCommand, GetCommand, UpdateCommand, TransactWriteCommand, BatchWriteCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { client, doc, checks } from "./lab.mjs";

const check = checks();

await client.send(new CreateTableCommand({
  TableName: "carts",
  AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "N" }],
  KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
  BillingMode: "PAY_PER_REQUEST",
}));
await waitUntilTableExists({ client, maxWaitTime: 10, minDelay: 1 }, { TableName: "carts" });

for (let start = 0; start < 30; start += 10) {
  const requests = [];
  for (let i = start; i < start + 10; i++) requests.push({ PutRequest: { Item: { pk: "cart#1", sk: i, qty: i % 4, tags: new Set(["a", "b"]) } } });
  const written = await doc.send(new BatchWriteCommand({ RequestItems: { carts: requests } }));
  check("batch write leaves nothing unprocessed", Object.keys(written.UnprocessedItems ?? {}).length === 0);
}

let count = 0, pages = 0, units = 0;
for await (const page of paginateQuery({ client, pageSize: 7 }, {
  TableName: "carts", KeyConditionExpression: "pk = :p", ExpressionAttributeValues: { ":p": { S: "cart#1" } },
  ReturnConsumedCapacity: "INDEXES",
})) { count += page.Count; pages++; units += page.ConsumedCapacity.CapacityUnits; }
check("paginator reads every item", count === 30);
check("each page says what it consumed: 0.5 RCU per page of small items", units === 0.5 * pages);
check("paginator pages by Limit", pages === 5);

const got = await doc.send(new GetCommand({ TableName: "carts", Key: { pk: "cart#1", sk: 3 } }));
check("document client unmarshals numbers and sets", got.Item.qty === 3 && got.Item.tags instanceof Set && got.Item.tags.has("b"));

const updated = await doc.send(new UpdateCommand({
  TableName: "carts", Key: { pk: "cart#1", sk: 3 }, UpdateExpression: "SET qty = qty + :n", ExpressionAttributeValues: { ":n": 2 }, ReturnValues: "ALL_NEW",
}));
check("update returns the new item", updated.Attributes.qty === 5);

const filtered = await doc.send(new QueryCommand({
  TableName: "carts", KeyConditionExpression: "pk = :p", FilterExpression: "qty = :z", ExpressionAttributeValues: { ":p": "cart#1", ":z": 0 },
}));
check("filter: Count vs ScannedCount", filtered.Count === 8 && filtered.ScannedCount === 30);

try {
  await doc.send(new PutCommand({ TableName: "carts", Item: { pk: "cart#1", sk: 1 }, ConditionExpression: "attribute_not_exists(pk)" }));
  check("conditional put fails", false);
} catch (error) {
  check("conditional put fails as ConditionalCheckFailedException", error instanceof ConditionalCheckFailedException);
}

try {
  await doc.send(new TransactWriteCommand({ TransactItems: [
    { Put: { TableName: "carts", Item: { pk: "cart#2", sk: 1 } } },
    { ConditionCheck: { TableName: "carts", Key: { pk: "cart#1", sk: 2 }, ConditionExpression: "qty > :big", ExpressionAttributeValues: { ":big": 100 } } },
  ] }));
  check("transaction cancelled", false);
} catch (error) {
  check("TransactionCanceledException with reasons in order", error instanceof TransactionCanceledException
    && error.CancellationReasons.map((r) => r.Code).join(",") === "None,ConditionalCheckFailed");
}
const untouched = await doc.send(new GetCommand({ TableName: "carts", Key: { pk: "cart#2", sk: 1 } }));
check("a cancelled transaction wrote nothing", untouched.Item === undefined);

try {
  await client.send(new DescribeTableCommand({ TableName: "nope" }));
  check("missing table", false);
} catch (error) {
  check("missing table is ResourceNotFoundException", error instanceof ResourceNotFoundException);
}
await client.send(new DeleteTableCommand({ TableName: "carts" }));

check.finish("js");
