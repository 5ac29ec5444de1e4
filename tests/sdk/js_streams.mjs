// DynamoDB Streams through the AWS SDK for JavaScript v3 (DynamoDBStreamsClient): a table's stream
// found, described and read from its first record, every change in order with its images, and the
// Streams API's typed errors. Usage: node js_streams.mjs ENDPOINT|in-process
import { CreateTableCommand, PutItemCommand, UpdateItemCommand, DeleteItemCommand } from "@aws-sdk/client-dynamodb";
import {
  DynamoDBStreamsClient, ListStreamsCommand, DescribeStreamCommand, GetShardIteratorCommand, GetRecordsCommand,
  ResourceNotFoundException,
} from "@aws-sdk/client-dynamodb-streams";
import { client, clientOptions, recorded, checks } from "./lab.mjs";

const check = checks();
const streams = recorded(new DynamoDBStreamsClient(clientOptions()));

const created = await client.send(new CreateTableCommand({
  TableName: "ledger", BillingMode: "PAY_PER_REQUEST",
  AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
  KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
  StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
}));
check("the table has a stream", typeof created.TableDescription.LatestStreamArn === "string");

for (const pk of ["a", "b", "c"]) await client.send(new PutItemCommand({ TableName: "ledger", Item: { pk: { S: pk }, n: { N: "1" } } }));
await client.send(new UpdateItemCommand({ TableName: "ledger", Key: { pk: { S: "b" } }, UpdateExpression: "SET n = n + :one",
  ExpressionAttributeValues: { ":one": { N: "1" } } }));
await client.send(new DeleteItemCommand({ TableName: "ledger", Key: { pk: { S: "c" } } }));

const listed = await streams.send(new ListStreamsCommand({ TableName: "ledger" }));
check("ListStreams finds the table's stream", listed.Streams.length === 1 && listed.Streams[0].StreamArn === created.TableDescription.LatestStreamArn);
const { StreamArn } = listed.Streams[0];
const described = await streams.send(new DescribeStreamCommand({ StreamArn }));
check("DescribeStream: enabled, one open shard", described.StreamDescription.StreamStatus === "ENABLED"
  && described.StreamDescription.Shards.length === 1 && described.StreamDescription.StreamViewType === "NEW_AND_OLD_IMAGES");
const { ShardId } = described.StreamDescription.Shards[0];
const { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn, ShardId, ShardIteratorType: "TRIM_HORIZON" }));
const read = await streams.send(new GetRecordsCommand({ ShardIterator }));
const events = read.Records.map((r) => `${r.eventName}:${r.dynamodb.Keys.pk.S}`).join(",");
check(`every change in order (${events})`, events === "INSERT:a,INSERT:b,INSERT:c,MODIFY:b,REMOVE:c");
const modify = read.Records[3].dynamodb;
check("a MODIFY carries both images", modify.OldImage.n.N === "1" && modify.NewImage.n.N === "2");
check("records are dated", read.Records.every((r) => r.dynamodb.ApproximateCreationDateTime instanceof Date));
const again = await streams.send(new GetRecordsCommand({ ShardIterator: read.NextShardIterator }));
check("the next iterator reads nothing new", again.Records.length === 0 && typeof again.NextShardIterator === "string");

try {
  await streams.send(new DescribeStreamCommand({ StreamArn: "arn:aws:dynamodb:us-east-1:000000000000:table/missing/stream/2020-01-01T00:00:00.000" }));
  check("a missing stream is an error", false);
} catch (error) {
  check(`a missing stream is the Streams client's ResourceNotFoundException (${error.name})`, error instanceof ResourceNotFoundException);
}

check.finish("js streams");
