//! `typescript/`: the access functions over the AWS SDK v3 document client (`access.ts`), a test
//! per pattern for `node --test` on the npm package's engine (`access.test.ts`), and a
//! `package.json` naming what they import.

use super::fold::{self, quoted, WIDTH};
use super::{Access, AccessCall, Function, Node, Piece, Plain, ResultKind, Shape};
use dynalab_engine::Operation;
use std::fmt::Write as _;

/// The three files, by name under `typescript/`.
pub(crate) fn files(access: &Access) -> Vec<(String, String)> {
    vec![
        ("typescript/access.ts".into(), module(access)),
        ("typescript/access.test.ts".into(), tests(access)),
        ("typescript/package.json".into(), package_json(access)),
    ]
}

/// The document client's command for `operation`; `None` for one it does not carry.
pub(super) fn command(operation: Operation) -> Option<&'static str> {
    Some(match operation {
        Operation::GetItem => "GetCommand",
        Operation::Query => "QueryCommand",
        Operation::Scan => "ScanCommand",
        Operation::PutItem => "PutCommand",
        Operation::UpdateItem => "UpdateCommand",
        Operation::DeleteItem => "DeleteCommand",
        Operation::BatchGetItem => "BatchGetCommand",
        Operation::BatchWriteItem => "BatchWriteCommand",
        Operation::TransactGetItems => "TransactGetCommand",
        Operation::TransactWriteItems => "TransactWriteCommand",
        Operation::ExecuteStatement => "ExecuteStatementCommand",
        Operation::BatchExecuteStatement => "BatchExecuteStatementCommand",
        Operation::ExecuteTransaction => "ExecuteTransactionCommand",
        _ => return None,
    })
}

fn module(access: &Access) -> String {
    let out = format!(
        "// Access code for the design \"{}\", written by `dynalab export`: one function per access\n\
         // pattern, each making the call Dynalab proved (`dynalab check`) — the same key condition,\n\
         // index, order, limit, filter, projection, consistency, conditions and transaction actions.\n\
         // Regenerate it from the design rather than editing it; `access.test.ts` checks it.\n\n",
        access.design
    );
    let mut imports: Vec<&str> =
        access.functions.iter().flat_map(|f| f.calls.iter().filter_map(|c| command(c.operation))).collect();
    imports.sort_unstable();
    imports.dedup();
    let header = out;
    let mut out = String::from("\n");
    out.push_str(
        "/** The key of the item a page ended on: pass it back to read the next page. */\n\
         export type PageKey = Record<string, unknown>;\n\n\
         /** A page of items, and the key to the next page when there is one. */\n\
         export interface Page<T> {\n  items: T[];\n  nextPageKey?: PageKey;\n}\n",
    );
    for table in &access.tables {
        for entity in &table.entities {
            let _ = write!(
                out,
                "\n/** Items of table `{}` whose {} ({} in the fixture). */\nexport interface {} {{\n",
                table.table,
                table.described(entity),
                entity.count,
                entity.name.pascal()
            );
            for (name, shape, always) in &entity.attributes {
                let _ = writeln!(out, "  {}{}: {};", property(name), if *always { "" } else { "?" }, type_of(*shape));
            }
            out.push_str("}\n");
        }
        let union: Vec<String> = table.entities.iter().map(|e| e.name.pascal()).collect();
        let _ = write!(
            out,
            "\n/** Any item of table `{}`. */\nexport type {} = {};\n",
            table.table,
            table.type_name.pascal(),
            if union.is_empty() { "Record<string, unknown>".to_string() } else { union.join(" | ") }
        );
    }
    for function in &access.functions {
        out.push('\n');
        out.push_str(&function_text(access, function));
    }
    // The imports follow what the functions turned out to write.
    if out.contains("NumberValue.from") {
        imports.push("NumberValue");
    }
    format!(
        "{header}import {{ {} }} from \"@aws-sdk/lib-dynamodb\";\nimport type {{ DynamoDBDocumentClient }} from \"@aws-sdk/lib-dynamodb\";\n{out}",
        imports.join(", ")
    )
}

fn property(name: &str) -> String {
    if is_identifier(name) {
        name.to_string()
    } else {
        quoted(name)
    }
}

fn is_identifier(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn type_of(shape: Shape) -> &'static str {
    match shape {
        Shape::Str => "string",
        Shape::Num => "number",
        Shape::Bool => "boolean",
        Shape::Null => "null",
        Shape::Bin => "Uint8Array",
        Shape::List => "unknown[]",
        Shape::Map => "Record<string, unknown>",
        Shape::StrSet => "Set<string>",
        Shape::NumSet => "Set<number>",
        Shape::BinSet => "Set<Uint8Array>",
        Shape::Mixed => "unknown",
    }
}

/// The item type a call returns.
fn item_type(access: &Access, call: &AccessCall) -> String {
    let table = call.table.as_ref().and_then(|t| access.tables.iter().find(|x| &x.table == t));
    let name = table.map_or_else(|| "Record<string, unknown>".to_string(), |t| t.type_name.pascal());
    if call.returns_projection() || call.index.is_some() {
        // A projection, or an index that may project fewer attributes, returns parts of items.
        format!("Partial<{name}>")
    } else {
        name
    }
}

fn result_type(access: &Access, call: &AccessCall) -> String {
    let item = item_type(access, call);
    match call.result() {
        ResultKind::Item => format!("{item} | undefined"),
        ResultKind::Page => format!("Page<{item}>"),
        ResultKind::Items => format!("{item}[]"),
        ResultKind::Nothing => "void".into(),
    }
}

fn function_text(access: &Access, function: &Function) -> String {
    let mut out = String::from("/**\n");
    let _ = writeln!(out, " * {} — {}", function.id, function.description);
    let _ = writeln!(out, " * {}", function.summary);
    for call in &function.calls {
        for line in &call.why {
            let _ = writeln!(out, " * {line}");
        }
    }
    if function.error_expected {
        if let Some((name, _)) = &function.error {
            let _ = writeln!(out, " * The design expects DynamoDB to refuse it with {name} on the fixture's data.");
        }
    }
    out.push_str(" */\n");
    let mut parameters = vec!["db: DynamoDBDocumentClient".to_string()];
    parameters.extend(
        function
            .parameters
            .iter()
            .map(|p| format!("{}: {}", p.name.camel(), if p.number { "number" } else { "string" })),
    );
    if function.pages() {
        parameters.push("startKey?: PageKey".into());
    }
    let returns: Vec<String> = function.calls.iter().map(|c| result_type(access, c)).collect();
    let returns = if returns.len() == 1 { returns[0].clone() } else { format!("[{}]", returns.join(", ")) };
    let signature =
        format!("export async function {}({}): Promise<{returns}> {{", function.name.camel(), parameters.join(", "));
    if signature.len() <= WIDTH {
        out.push_str(&signature);
        out.push('\n');
    } else {
        let _ = writeln!(out, "export async function {}(", function.name.camel());
        for parameter in &parameters {
            let _ = writeln!(out, "  {parameter},");
        }
        let _ = writeln!(out, "): Promise<{returns}> {{");
    }
    let mut results = Vec::new();
    for (i, call) in function.calls.iter().enumerate() {
        let output = if function.calls.len() == 1 { "output".to_string() } else { format!("output{}", i + 1) };
        let mut request = call.request.clone();
        if function.pages() {
            if let Node::Object(fields) = &mut request {
                fields.push(("ExclusiveStartKey".into(), Node::StartKey));
            }
        }
        let argument = fold::node(&Ts(function), &request, 1);
        // Every call here has a command: `access` leaves out the patterns with a call that has none.
        let send = format!("new {}({argument})", command(call.operation).unwrap_or_default());
        if call.result() == ResultKind::Nothing {
            let _ = writeln!(out, "  await db.send({send});");
        } else {
            let _ = writeln!(out, "  const {output} = await db.send({send});");
        }
        let item = item_type(access, call);
        results.push(match call.result() {
            ResultKind::Item => format!("{output}.Item as {item} | undefined"),
            ResultKind::Page => {
                format!("{{ items: ({output}.Items ?? []) as {item}[], nextPageKey: {output}.LastEvaluatedKey }}")
            }
            ResultKind::Items => match call.operation {
                Operation::BatchGetItem => format!("Object.values({output}.Responses ?? {{}}).flat() as {item}[]"),
                Operation::ExecuteStatement => format!("({output}.Items ?? []) as {item}[]"),
                _ => format!("({output}.Responses ?? []).flatMap((r) => (r.Item ? [r.Item] : [])) as {item}[]"),
            },
            ResultKind::Nothing => String::new(),
        });
    }
    let shown: Vec<&String> = results.iter().filter(|r| !r.is_empty()).collect();
    if function.calls.len() == 1 {
        if let Some(result) = shown.first() {
            let _ = writeln!(out, "  return {result};");
        }
    } else if !shown.is_empty() {
        let all: Vec<String> =
            results.iter().map(|r| if r.is_empty() { "undefined".into() } else { r.clone() }).collect();
        let _ = writeln!(out, "  return [\n    {},\n  ];", all.join(",\n    "));
    }
    out.push_str("}\n");
    out
}

/// TypeScript's spelling, inside one function (its parameters by name).
struct Ts<'a>(&'a Function);

impl fold::Syntax for Ts<'_> {
    fn key(&self, name: &str) -> String {
        property(name)
    }

    fn json(&self, value: &serde_json::Value) -> String {
        value.to_string()
    }

    fn scalar(&self, value: &Plain) -> String {
        let parameter = |i: usize| self.0.parameters.get(i).map_or_else(|| "undefined".into(), |p| p.name.camel());
        match value {
            Plain::Str(pieces) => match pieces.as_slice() {
                [Piece::Text(text)] => quoted(text),
                [Piece::Parameter(i)] => parameter(*i),
                _ => {
                    let mut out = String::from("`");
                    for piece in pieces {
                        match piece {
                            Piece::Text(text) => {
                                out.push_str(&text.replace('\\', "\\\\").replace('`', "\\`").replace("${", "\\${"))
                            }
                            Piece::Parameter(i) => {
                                let _ = write!(out, "${{{}}}", parameter(*i));
                            }
                        }
                    }
                    out + "`"
                }
            },
            Plain::Num(Piece::Parameter(i)) => parameter(*i),
            Plain::Num(Piece::Text(text)) => number(text),
            Plain::Bool(b) => b.to_string(),
            Plain::Null => "null".into(),
            Plain::Bin(bytes) => binary(bytes),
            Plain::StrSet(items) => {
                format!("new Set([{}])", items.iter().map(|s| quoted(s)).collect::<Vec<_>>().join(", "))
            }
            Plain::NumSet(items) => {
                format!("new Set([{}])", items.iter().map(|n| number(n)).collect::<Vec<_>>().join(", "))
            }
            Plain::BinSet(items) => {
                format!("new Set([{}])", items.iter().map(|b| binary(b)).collect::<Vec<_>>().join(", "))
            }
            Plain::List(_) | Plain::Map(_) => fold::plain_inline(self, value),
        }
    }

    fn start_key(&self) -> String {
        "startKey".into()
    }

    fn indent(&self) -> &'static str {
        "  "
    }

    fn padded_braces(&self) -> bool {
        true
    }
}

/// A number JavaScript holds exactly as itself, or a `NumberValue` keeping DynamoDB's digits.
fn number(text: &str) -> String {
    let digits = text.chars().filter(char::is_ascii_digit).collect::<String>();
    let significant = digits.trim_start_matches('0').trim_end_matches('0').len();
    let plain = text.chars().all(|c| c.is_ascii_digit() || c == '-' || c == '.');
    if plain && significant <= 15 && text.parse::<f64>().is_ok() {
        text.to_string()
    } else {
        format!("NumberValue.from({})", quoted(text))
    }
}

fn binary(bytes: &[u8]) -> String {
    use base64::Engine as _;
    format!("Buffer.from({}, \"base64\")", quoted(&base64::engine::general_purpose::STANDARD.encode(bytes)))
}

fn tests(access: &Access) -> String {
    let mut out = format!(
        "// Runs each access function of the design \"{}\" on Dynalab's engine in this process, loaded\n\
         // with the design's fixture (`../fixture.json`) as the proof was, and expects what the proof\n\
         // saw: the items (by key), the end of the page, the capacity units, the error.\n\
         // `node --test` (Node 22.18 or later strips the types; earlier 22s: --experimental-strip-types).\n\
         // With AWS_ENDPOINT_URL_DYNAMODB set to a local endpoint (DynamoDB Local, `dynalab serve`), the\n\
         // same tests run there instead.\n\n",
        access.design
    );
    out.push_str(
        "import { test } from \"node:test\";\n\
         import assert from \"node:assert/strict\";\n\
         import { readFileSync } from \"node:fs\";\n\
         import * as dynamodb from \"@aws-sdk/client-dynamodb\";\n\
         import { DynamoDBDocumentClient } from \"@aws-sdk/lib-dynamodb\";\n\
         import { Engine, clientConfig } from \"dynalab\";\n\
         import * as access from \"./access.ts\";\n\n\
         interface Fixture {\n  now: number;\n  tables: Record<string, unknown>[];\n  items: Record<string, Record<string, unknown>[]>;\n  setup: { operation: string; request: Record<string, unknown> }[];\n}\n\n\
         const fixture: Fixture = JSON.parse(readFileSync(new URL(\"../fixture.json\", import.meta.url), \"utf8\"));\n\
         const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;\n\
         /** Whether the endpoint's tables hold the fixture unchanged (no test wrote since they were loaded). */\n\
         let endpointHoldsFixture = false;\n\n\
         /** A document client on the design's tables, items and setup (a fresh engine in this process, or\n \
         * the endpoint's tables as loaded), and the capacity units each call it sends consumes (asked\n \
         * for on every call, as the proof did). `writes`: the test may change the tables. */\n\
         async function loaded(writes: boolean): Promise<{ db: DynamoDBDocumentClient; consumed: number[] }> {\n\
         \x20 const client = endpoint === undefined ? inProcess() : await atEndpoint(endpoint, writes);\n\
         \x20 const consumed: number[] = [];\n\
         \x20 client.middlewareStack.add(\n\
         \x20   (next) => async (args) => {\n\
         \x20     (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = \"TOTAL\";\n\
         \x20     const result = await next(args);\n\
         \x20     const capacity = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;\n\
         \x20     for (const entry of [capacity].flat() as ({ CapacityUnits?: number } | undefined)[]) {\n\
         \x20       if (entry) consumed.push(entry.CapacityUnits ?? 0);\n\
         \x20     }\n\
         \x20     return result;\n\
         \x20   },\n\
         \x20   { step: \"initialize\", name: \"consumedCapacity\" },\n\
         \x20 );\n\
         \x20 return { db: DynamoDBDocumentClient.from(client), consumed };\n\
         }\n\n\
         function inProcess(): dynamodb.DynamoDBClient {\n\
         \x20 const engine = new Engine({ now: fixture.now });\n\
         \x20 for (const table of fixture.tables) engine.execute(\"CreateTable\", table);\n\
         \x20 for (const [table, items] of Object.entries(fixture.items)) {\n\
         \x20   for (const item of items) engine.execute(\"PutItem\", { TableName: table, Item: item });\n\
         \x20 }\n\
         \x20 for (const call of fixture.setup) engine.execute(call.operation, call.request);\n\
         \x20 return new dynamodb.DynamoDBClient(clientConfig(engine));\n\
         }\n\n\
         /** A client at a local endpoint whose tables hold the fixture, loaded again after a test that\n \
         * wrote. Only a loopback address: the design's tables there are deleted and created anew. */\n\
         async function atEndpoint(url: string, writes: boolean): Promise<dynamodb.DynamoDBClient> {\n\
         \x20 if (!/^https?:\\/\\/(127\\.0\\.0\\.1|localhost|\\[::1\\])(:\\d+)?\\/?$/.test(url)) {\n\
         \x20   const why = \"these tests delete and re-create the design's tables, so they run only against a local endpoint\";\n\
         \x20   throw new Error(`AWS_ENDPOINT_URL_DYNAMODB=${url}: ${why}`);\n\
         \x20 }\n\
         \x20 // A local endpoint takes any credentials: the environment's when it has them.\n\
         \x20 const { AWS_ACCESS_KEY_ID: accessKeyId = \"dynalab\", AWS_SECRET_ACCESS_KEY: secretAccessKey = \"dynalab\" } = process.env;\n\
         \x20 const credentials = { accessKeyId, secretAccessKey };\n\
         \x20 const client = new dynamodb.DynamoDBClient({ endpoint: url, region: \"us-east-1\", credentials });\n\
         \x20 if (!endpointHoldsFixture) {\n\
         \x20   for (const table of fixture.tables) {\n\
         \x20     const name = { TableName: table.TableName };\n\
         \x20     if (table.DeletionProtectionEnabled) {\n\
         \x20       await send(client, \"UpdateTable\", { ...name, DeletionProtectionEnabled: false }).catch(() => undefined);\n\
         \x20     }\n\
         \x20     await send(client, \"DeleteTable\", name).catch((e: Error) => {\n\
         \x20       if (e.name !== \"ResourceNotFoundException\") throw e;\n\
         \x20     });\n\
         \x20     await send(client, \"CreateTable\", table);\n\
         \x20   }\n\
         \x20   for (const [table, items] of Object.entries(fixture.items)) {\n\
         \x20     for (let first = 0; first < items.length; first += 25) {\n\
         \x20       const batch = items.slice(first, first + 25);\n\
         \x20       let unprocessed: unknown = { [table]: batch.map((Item) => ({ PutRequest: { Item } })) };\n\
         \x20       while (unprocessed !== undefined && Object.keys(unprocessed as object).length > 0) {\n\
         \x20         unprocessed = (await send(client, \"BatchWriteItem\", { RequestItems: unprocessed })).UnprocessedItems;\n\
         \x20       }\n\
         \x20     }\n\
         \x20   }\n\
         \x20   for (const call of fixture.setup) await send(client, call.operation, call.request);\n\
         \x20 }\n\
         \x20 endpointHoldsFixture = !writes;\n\
         \x20 return client;\n\
         }\n\n\
         /** Sends a fixture call by its operation's name through the SDK's command of that name. */\n\
         async function send(client: dynamodb.DynamoDBClient, operation: string, request: unknown): Promise<Record<string, unknown>> {\n\
         \x20 const commands = dynamodb as unknown as Record<string, new (input: unknown) => dynamodb.GetItemCommand>;\n\
         \x20 const Command = commands[`${operation}Command`];\n\
         \x20 if (Command === undefined) throw new Error(`the SDK has no ${operation}Command`);\n\
         \x20 const answer: object = await client.send(new Command(wire(request)));\n\
         \x20 return answer as Record<string, unknown>;\n\
         }\n\n\
         /** A fixture value as the SDK sends it: binary attribute values (base64 in JSON) as bytes. */\n\
         function wire(value: unknown): unknown {\n\
         \x20 if (Array.isArray(value)) return value.map(wire);\n\
         \x20 if (value === null || typeof value !== \"object\" || value instanceof Uint8Array) return value;\n\
         \x20 const fields = Object.entries(value);\n\
         \x20 const [name, inner] = fields.length === 1 ? fields[0] : [\"\", undefined];\n\
         \x20 if (name === \"B\" && typeof inner === \"string\") return { B: Buffer.from(inner, \"base64\") };\n\
         \x20 if (name === \"BS\" && Array.isArray(inner)) return { BS: inner.map((b: string) => Buffer.from(b, \"base64\")) };\n\
         \x20 return Object.fromEntries(fields.map(([key, field]) => [key, wire(field)]));\n\
         }\n\n\
         /** The key attributes `names` of an item (those it has). */\n\
         function keyOf(item: object | undefined, names: string[]): Record<string, unknown> | undefined {\n\
         \x20 return item && Object.fromEntries(Object.entries(item).filter(([name]) => names.includes(name)));\n\
         }\n\n\
         const sum = (units: number[]) => units.reduce((a, b) => a + b, 0);\n",
    );
    for function in &access.functions {
        out.push('\n');
        out.push_str(&test_text(access, function));
    }
    out
}

fn test_text(access: &Access, function: &Function) -> String {
    let mut out = format!(
        "test({}, async () => {{\n  const {} = await loaded({});\n",
        quoted(&format!("{} {}", function.id, function.description)),
        if function.error.is_some() { "{ db }" } else { "{ db, consumed }" },
        function.writes()
    );
    let mut arguments = vec!["db".to_string()];
    arguments
        .extend(function.parameters.iter().map(|p| if p.number { number(&p.example) } else { quoted(&p.example) }));
    let call = format!("access.{}({})", function.name.camel(), arguments.join(", "));
    if let Some((name, message)) = &function.error {
        if !function.error_expected {
            let _ = writeln!(out, "  // The proof saw this fail although the design did not expect it: {message}");
        }
        let _ = writeln!(out, "  await assert.rejects({call}, {{ name: {} }});", quoted(name));
        out.push_str("});\n");
        return out;
    }
    let calls = function.calls.len();
    let has_result = function.calls.iter().any(|c| c.result() != ResultKind::Nothing);
    if has_result {
        let _ = writeln!(out, "  const result = await {call};");
    } else {
        let _ = writeln!(out, "  await {call};");
    }
    for (i, call) in function.calls.iter().enumerate() {
        let result = if calls == 1 { "result".to_string() } else { format!("result[{i}]") };
        let keys = access
            .tables
            .iter()
            .find(|t| Some(&t.table) == call.table.as_ref())
            .map(|t| t.keys.iter().map(|k| quoted(k)).collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        match call.result() {
            ResultKind::Item => match call.returned.first() {
                Some(key) => {
                    let _ = writeln!(
                        out,
                        "  assert.deepEqual(keyOf({result}, [{keys}]), {});",
                        fold::plain_inline(&Ts(function), key)
                    );
                }
                None => {
                    let _ = writeln!(out, "  assert.equal({result}, undefined);");
                }
            },
            ResultKind::Page => {
                let listed = fold::plain(&Ts(function), &Plain::List(call.returned.clone()), 1);
                let _ =
                    writeln!(out, "  assert.deepEqual({result}.items.map((item) => keyOf(item, [{keys}])), {listed});");
                let _ = writeln!(
                    out,
                    "  assert.equal({result}.nextPageKey !== undefined, {}, \"the page {}\");",
                    call.paged,
                    if call.paged { "ends before the last item" } else { "holds every item" }
                );
            }
            ResultKind::Items => {
                let _ = writeln!(out, "  assert.equal({result}.length, {});", call.returned_count);
            }
            ResultKind::Nothing => {}
        }
    }
    let units: f64 = function.calls.iter().map(|c| c.units).sum();
    let _ = writeln!(
        out,
        "  assert.equal(sum(consumed), {}, \"capacity units, as the proof reported\");",
        crate::numbers::decimal(units)
    );
    out.push_str("});\n");
    out
}

fn package_json(access: &Access) -> String {
    let name: String = super::Words::of(&access.design).snake().replace('_', "-");
    format!(
        "{{\n  \"name\": \"{name}-access\",\n  \"private\": true,\n  \"type\": \"module\",\n  \"description\": \"Access code for the design {}, exported by dynalab\",\n  \"scripts\": {{\n    \"test\": \"node --test\"\n  }},\n  \"dependencies\": {{\n    \"@aws-sdk/client-dynamodb\": \"^3.700.0\",\n    \"@aws-sdk/lib-dynamodb\": \"^3.700.0\"\n  }},\n  \"devDependencies\": {{\n    \"dynalab\": \"*\"\n  }}\n}}\n",
        access.design.replace('"', "'")
    )
}
