// A PartiQL session through the AWS SDK for JavaScript v3 against `dynalab serve`: statements with
// parameters, paging with NextToken, a batch, a transaction and its cancellation, typed errors,
// and the document client's PartiQL commands. Usage: node js_partiql.mjs http://127.0.0.1:PORT
import {
  CreateTableCommand, ExecuteStatementCommand, BatchExecuteStatementCommand, ExecuteTransactionCommand,
  DuplicateItemException, TransactionCanceledException, ConditionalCheckFailedException,
} from "@aws-sdk/client-dynamodb";
import { ExecuteStatementCommand as DocExecuteStatement } from "@aws-sdk/lib-dynamodb";
import { client, doc, checks } from "./lab.mjs";

const check = checks();
const run = (Statement, Parameters, extra = {}) => client.send(new ExecuteStatementCommand({ Statement, Parameters, ...extra }));

await client.send(new CreateTableCommand({
  TableName: "notes",
  AttributeDefinitions: [{ AttributeName: "owner", AttributeType: "S" }, { AttributeName: "id", AttributeType: "N" }],
  KeySchema: [{ AttributeName: "owner", KeyType: "HASH" }, { AttributeName: "id", KeyType: "RANGE" }],
  BillingMode: "PAY_PER_REQUEST",
}));
for (let i = 1; i <= 12; i++) {
  await run(`INSERT INTO notes VALUE {'owner': ?, 'id': ?, 'text': ?, 'tags': <<'new'>>}`, [{ S: "ada" }, { N: String(i) }, { S: `note ${i}` }]);
}
try {
  await run(`INSERT INTO notes VALUE {'owner': 'ada', 'id': 1}`);
  check("a duplicate INSERT is refused", false);
} catch (e) {
  check("a duplicate INSERT is a typed DuplicateItemException", e instanceof DuplicateItemException);
}

let items = [], pages = 0, NextToken;
do {
  const page = await run(`SELECT id FROM notes WHERE owner = ? AND id > ?`, [{ S: "ada" }, { N: "2" }], { Limit: 4, NextToken });
  items = items.concat(page.Items);
  NextToken = page.NextToken;
  pages++;
} while (NextToken && pages < 10);
check("SELECT pages with NextToken and returns every match", items.length === 10 && items[0].id.N === "3");

const updated = await run(`UPDATE notes SET text = ? REMOVE tags WHERE owner = 'ada' AND id = 5 RETURNING ALL NEW *`, [{ S: "edited" }]);
check("UPDATE ... RETURNING ALL NEW", updated.Items[0].text.S === "edited" && updated.Items[0].tags === undefined);
try {
  await run(`UPDATE notes SET text = 'x' WHERE owner = 'nobody' AND id = 1`);
  check("UPDATE of a missing item is refused", false);
} catch (e) {
  check("UPDATE of a missing item is a ConditionalCheckFailedException", e instanceof ConditionalCheckFailedException);
}

const batch = await client.send(new BatchExecuteStatementCommand({ Statements: [
  { Statement: `SELECT text FROM notes WHERE owner = 'ada' AND id = 5` },
  { Statement: `SELECT text FROM notes WHERE owner = 'ada' AND id = 99` },
] }));
check("a batch answers each statement", batch.Responses[0].Item.text.S === "edited" && batch.Responses[1].Item === undefined);

await client.send(new ExecuteTransactionCommand({ TransactStatements: [
  { Statement: `DELETE FROM notes WHERE owner = 'ada' AND id = 1` },
  { Statement: `INSERT INTO notes VALUE {'owner': 'grace', 'id': 1}` },
] }));
try {
  await client.send(new ExecuteTransactionCommand({ TransactStatements: [
    { Statement: `INSERT INTO notes VALUE {'owner': 'grace', 'id': 2}` },
    { Statement: `UPDATE notes SET text = 'x' WHERE owner = 'ada' AND id = 1` },
  ] }));
  check("a transaction with a failing statement is cancelled", false);
} catch (e) {
  check("the cancellation names the failing statement", e instanceof TransactionCanceledException
    && e.CancellationReasons.map((r) => r.Code).join() === "None,ConditionalCheckFailed");
}
const grace = await doc.send(new DocExecuteStatement({ Statement: `SELECT * FROM notes WHERE owner = ?`, Parameters: ["grace"] }));
check("the document client's PartiQL unmarshals", grace.Items.length === 1 && grace.Items[0].id === 1);
check.finish("js partiql");
