//! `python/`: the access functions over boto3 (`access.py`, typed with `TypedDict`), a test per
//! pattern for pytest with the `dynalab_dynamodb` fixture (`test_access.py`), and the
//! `requirements.txt` they need.

use super::fold::{self, quoted};
use super::{Access, AccessCall, Function, Piece, Plain, ResultKind, Shape};
use dynalab_engine::Operation;
use std::fmt::Write as _;

/// The three files, by name under `python/`.
pub(crate) fn files(access: &Access) -> Vec<(String, String)> {
    vec![
        ("python/access.py".into(), module(access)),
        ("python/test_access.py".into(), tests(access)),
        (
            "python/requirements.txt".into(),
            "boto3\n# the tests: the engine in process and its pytest fixture\ndynalab\npytest\n".into(),
        ),
    ]
}

/// boto3's method for `operation`: its name in snake case (`BatchGetItem` → `batch_get_item`).
fn method(operation: Operation) -> String {
    super::Words::of(operation.name()).snake()
}

/// Python's spelling, inside one function (its parameters by name).
struct Py<'a>(&'a Function);

impl fold::Syntax for Py<'_> {
    fn key(&self, name: &str) -> String {
        quoted(name)
    }

    fn json(&self, value: &serde_json::Value) -> String {
        match value {
            serde_json::Value::Bool(true) => "True".into(),
            serde_json::Value::Bool(false) => "False".into(),
            serde_json::Value::Null => "None".into(),
            other => other.to_string(),
        }
    }

    fn scalar(&self, value: &Plain) -> String {
        let parameter = |i: usize| self.0.parameters.get(i).map_or_else(|| "None".into(), |p| p.name.snake());
        match value {
            Plain::Str(pieces) => match pieces.as_slice() {
                [Piece::Text(text)] => quoted(text),
                [Piece::Parameter(i)] => parameter(*i),
                _ => {
                    let mut out = String::from("f\"");
                    for piece in pieces {
                        match piece {
                            Piece::Text(text) => {
                                let escaped = quoted(text);
                                out.push_str(&escaped[1..escaped.len() - 1].replace('{', "{{").replace('}', "}}"));
                            }
                            Piece::Parameter(i) => {
                                let _ = write!(out, "{{{}}}", parameter(*i));
                            }
                        }
                    }
                    out + "\""
                }
            },
            Plain::Num(Piece::Parameter(i)) => parameter(*i),
            Plain::Num(Piece::Text(text)) => decimal(text),
            Plain::Bool(true) => "True".into(),
            Plain::Bool(false) => "False".into(),
            Plain::Null => "None".into(),
            Plain::Bin(bytes) => binary(bytes),
            Plain::StrSet(items) => set(items.iter().map(|s| quoted(s))),
            Plain::NumSet(items) => set(items.iter().map(|n| decimal(n))),
            Plain::BinSet(items) => set(items.iter().map(|b| binary(b))),
            Plain::List(_) | Plain::Map(_) => fold::plain_inline(self, value),
        }
    }

    fn start_key(&self) -> String {
        "start_key".into()
    }

    fn indent(&self) -> &'static str {
        "    "
    }

    fn padded_braces(&self) -> bool {
        false
    }
}

fn set(items: impl Iterator<Item = String>) -> String {
    format!("{{{}}}", items.collect::<Vec<_>>().join(", "))
}

/// boto3 takes numbers as `Decimal` (never `float`, which DynamoDB's numbers do not fit).
fn decimal(text: &str) -> String {
    format!("Decimal({})", quoted(text))
}

fn binary(bytes: &[u8]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("bytes.fromhex(\"{hex}\")")
}

fn type_of(shape: Shape) -> &'static str {
    match shape {
        Shape::Str => "str",
        Shape::Num => "Decimal",
        Shape::Bool => "bool",
        Shape::Null => "None",
        Shape::Bin => "bytes",
        Shape::List => "List[Any]",
        Shape::Map => "Dict[str, Any]",
        Shape::StrSet => "Set[str]",
        Shape::NumSet => "Set[Decimal]",
        Shape::BinSet => "Set[bytes]",
        Shape::Mixed => "Any",
    }
}

fn parameter_type(function: &Function, i: usize) -> &'static str {
    match function.parameters.get(i) {
        Some(p) if p.number && p.example.parse::<i64>().is_ok() => "int",
        Some(p) if p.number => "Decimal",
        _ => "str",
    }
}

fn argument(function: &Function, i: usize) -> String {
    let p = &function.parameters[i];
    match parameter_type(function, i) {
        "int" => p.example.clone(),
        "Decimal" => decimal(&p.example),
        _ => quoted(&p.example),
    }
}

fn module(access: &Access) -> String {
    let out = format!(
        "\"\"\"Access code for the design {}, written by ``dynalab export``: one function per access\n\
         pattern, each making the call Dynalab proved (``dynalab check``) — the same key condition,\n\
         index, order, limit, filter, projection, consistency, conditions and transaction actions.\n\n\
         Each function takes a DynamoDB client that reads and writes plain Python values, the client of\n\
         boto3's resource: ``boto3.resource(\"dynamodb\").meta.client`` (numbers are ``Decimal``, sets are\n\
         ``set``). Regenerate this file from the design rather than editing it; ``test_access.py``\n\
         checks it.\n\"\"\"\n\n",
        quoted(&access.design)
    );
    let header = out;
    let mut out = String::new();
    out.push_str(
        "\nPageKey = Dict[str, Any]\n\n\n\
         @dataclass\n\
         class Page:\n\
         \x20   \"\"\"A page of items, and the key to the next page when there is one.\"\"\"\n\n\
         \x20   items: List[Any]\n\
         \x20   next_page_key: Optional[PageKey] = None\n",
    );
    for table in &access.tables {
        for entity in &table.entities {
            let all = entity.attributes.iter().all(|(_, _, always)| *always);
            let fields: Vec<String> = entity
                .attributes
                .iter()
                .map(|(name, shape, _)| format!("{}: {}", quoted(name), type_of(*shape)))
                .collect();
            let name = entity.name.pascal();
            let line = format!(
                "{name} = TypedDict({}, {{{}}}{})",
                quoted(&name),
                fields.join(", "),
                if all { "" } else { ", total=False" }
            );
            out.push_str("\n\n");
            if line.len() <= fold::WIDTH {
                out.push_str(&line);
            } else {
                let _ = write!(out, "{name} = TypedDict(\n    {},\n    {{\n", quoted(&name));
                for field in &fields {
                    let _ = writeln!(out, "        {field},");
                }
                out.push_str(if all { "    },\n)" } else { "    },\n    total=False,\n)" });
            }
            let _ = write!(
                out,
                "\n\"\"\"Items of table ``{}`` whose {} ({} in the fixture){}.\"\"\"\n",
                table.table,
                table.described(entity).replace('`', "``"),
                entity.count,
                if all { "" } else { "; not every one has every attribute" }
            );
        }
        let union: Vec<String> = table.entities.iter().map(|e| e.name.pascal()).collect();
        let _ = write!(
            out,
            "\n{} = {}\n\"\"\"Any item of table ``{}``.\"\"\"\n",
            table.type_name.pascal(),
            match union.len() {
                0 => "Dict[str, Any]".to_string(),
                1 => union[0].clone(),
                _ => format!("Union[{}]", union.join(", ")),
            },
            table.table
        );
    }
    for function in &access.functions {
        out.push_str("\n\n");
        out.push_str(&function_text(access, function));
    }
    header + &imports(&out) + &out
}

fn item_type(access: &Access, call: &AccessCall) -> String {
    call.table
        .as_ref()
        .and_then(|t| access.tables.iter().find(|x| &x.table == t))
        .filter(|_| !call.returns_projection() && call.index.is_none())
        .map_or_else(|| "Dict[str, Any]".into(), |t| t.type_name.pascal())
}

fn result_type(access: &Access, call: &AccessCall) -> String {
    let item = item_type(access, call);
    match call.result() {
        ResultKind::Item => format!("Optional[{item}]"),
        ResultKind::Page => "Page".into(),
        ResultKind::Items => format!("List[{item}]"),
        ResultKind::Nothing => "None".into(),
    }
}

fn function_text(access: &Access, function: &Function) -> String {
    let mut parameters = vec!["dynamodb".to_string()];
    parameters.extend(
        (0..function.parameters.len())
            .map(|i| format!("{}: {}", function.parameters[i].name.snake(), parameter_type(function, i))),
    );
    if function.pages() {
        parameters.push("start_key: Optional[PageKey] = None".into());
    }
    let returns: Vec<String> = function.calls.iter().map(|c| result_type(access, c)).collect();
    let returns = if returns.len() == 1 { returns[0].clone() } else { format!("tuple[{}]", returns.join(", ")) };
    let name = function.name.snake();
    let signature = format!("def {name}({}) -> {returns}:", parameters.join(", "));
    let mut out = if signature.len() <= fold::WIDTH {
        signature + "\n"
    } else {
        let mut text = format!("def {name}(\n");
        for parameter in &parameters {
            let _ = writeln!(text, "    {parameter},");
        }
        text + &format!(") -> {returns}:\n")
    };
    let _ = write!(out, "    \"\"\"{} — {}\n\n    {}\n", function.id, function.description, function.summary);
    for call in &function.calls {
        for line in &call.why {
            let _ = writeln!(out, "    {}", line.replace('`', "``"));
        }
    }
    if function.error_expected {
        if let Some((error, _)) = &function.error {
            let _ = writeln!(out, "    The design expects DynamoDB to refuse it with {error} on the fixture's data.");
        }
    }
    out.push_str("    \"\"\"\n");
    let mut results = Vec::new();
    for (i, call) in function.calls.iter().enumerate() {
        let suffix = if function.calls.len() == 1 { String::new() } else { (i + 1).to_string() };
        let request = fold::node(&Py(function), &call.request, 1);
        let output = format!("output{suffix}");
        if function.pages() {
            let _ = writeln!(out, "    request = {request}");
            out.push_str("    if start_key is not None:\n        request[\"ExclusiveStartKey\"] = start_key\n");
            let _ = writeln!(out, "    {output} = dynamodb.{}(**request)", method(call.operation));
        } else if call.result() == ResultKind::Nothing {
            let _ = writeln!(out, "    dynamodb.{}(**{request})", method(call.operation));
        } else {
            let _ = writeln!(out, "    {output} = dynamodb.{}(**{request})", method(call.operation));
        }
        results.push(match call.result() {
            ResultKind::Item => format!("{output}.get(\"Item\")"),
            ResultKind::Page => format!("Page({output}.get(\"Items\", []), {output}.get(\"LastEvaluatedKey\"))"),
            ResultKind::Items => match call.operation {
                Operation::BatchGetItem => {
                    format!("[item for items in {output}.get(\"Responses\", {{}}).values() for item in items]")
                }
                Operation::ExecuteStatement => format!("{output}.get(\"Items\", [])"),
                _ => format!("[r[\"Item\"] for r in {output}.get(\"Responses\", []) if \"Item\" in r]"),
            },
            ResultKind::Nothing => "None".into(),
        });
    }
    if function.calls.len() == 1 {
        if function.calls[0].result() != ResultKind::Nothing {
            let _ = writeln!(out, "    return {}", results[0]);
        }
    } else if function.calls.iter().any(|c| c.result() != ResultKind::Nothing) {
        let _ = writeln!(out, "    return (\n        {},\n    )", results.join(",\n        "));
    }
    out
}

fn tests(access: &Access) -> String {
    let mut out = format!(
        "\"\"\"Runs each access function of the design {} on Dynalab's engine in this process (the\n\
         ``dynalab_dynamodb`` pytest fixture), loaded with the design's fixture (``../fixture.json``) as\n\
         the proof was, and expects what the proof saw: the items (by key), the end of the page, the\n\
         capacity units, the error. With AWS_ENDPOINT_URL_DYNAMODB set to a local endpoint (DynamoDB\n\
         Local, ``dynalab serve``), the same tests run there instead.\n\"\"\"\n\n",
        quoted(&access.design)
    );
    out.push_str(
        "import base64\n\
         import json\n\
         import os\n\
         import pathlib\n\
         import re\n\
         {decimal}\n\
         import boto3\n\
         import pytest\n\
         from botocore import xform_name\n\
         {client_error}\n\
         import access\n\n\
         FIXTURE = json.loads((pathlib.Path(__file__).parent.parent / \"fixture.json\").read_text(encoding=\"utf-8\"))\n\
         ENDPOINT = os.environ.get(\"AWS_ENDPOINT_URL_DYNAMODB\")\n\
         # Whether the endpoint's tables hold the fixture unchanged (no test wrote since they were loaded).\n\
         endpoint_holds_fixture = [False]\n\n\n\
         @pytest.fixture\n\
         def load(request):\n\
         \x20   \"\"\"Loads the design's tables, items and setup (a fresh engine in this process, or the\n\
         \x20   endpoint's tables) and answers a plain-values client on them and the list of capacity units\n\
         \x20   each call it sends consumes (asked for on every call, as the proof did). ``writes``: the test\n\
         \x20   may change the tables.\"\"\"\n\n\
         \x20   def loaded(writes):\n\
         \x20       if ENDPOINT is None:\n\
         \x20           in_process(request.getfixturevalue(\"dynalab_dynamodb\"))\n\
         \x20           client = boto3.resource(\"dynamodb\", region_name=\"us-east-1\").meta.client\n\
         \x20       else:\n\
         \x20           client = at_endpoint(ENDPOINT, writes)\n\
         \x20       consumed = []\n\n\
         \x20       def ask_for_capacity(params, **_):\n\
         \x20           params[\"ReturnConsumedCapacity\"] = \"TOTAL\"\n\n\
         \x20       def record_capacity(parsed, **_):\n\
         \x20           capacity = parsed.get(\"ConsumedCapacity\", [])\n\
         \x20           for entry in capacity if isinstance(capacity, list) else [capacity]:\n\
         \x20               consumed.append(entry.get(\"CapacityUnits\", 0))\n\n\
         \x20       client.meta.events.register(\"before-parameter-build.dynamodb\", ask_for_capacity)\n\
         \x20       client.meta.events.register(\"after-call.dynamodb\", record_capacity)\n\
         \x20       return client, consumed\n\n\
         \x20   return loaded\n\n\n\
         def in_process(engine):\n\
         \x20   for table in FIXTURE[\"tables\"]:\n\
         \x20       engine.call(\"CreateTable\", table)\n\
         \x20   for table, items in FIXTURE[\"items\"].items():\n\
         \x20       for item in items:\n\
         \x20           engine.call(\"PutItem\", {\"TableName\": table, \"Item\": item})\n\
         \x20   for call in FIXTURE[\"setup\"]:\n\
         \x20       engine.call(call[\"operation\"], call[\"request\"])\n\n\n\
         def at_endpoint(url, writes):\n\
         \x20   \"\"\"A plain-values client at a local endpoint whose tables hold the fixture, loaded again after\n\
         \x20   a test that wrote. Only a loopback address: the design's tables there are deleted and created\n\
         \x20   anew.\"\"\"\n\
         \x20   if not re.fullmatch(r\"https?://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:\\d+)?/?\", url):\n\
         \x20       raise RuntimeError(\n\
         \x20           f\"AWS_ENDPOINT_URL_DYNAMODB={url}: these tests delete and re-create the design's tables, \"\n\
         \x20           \"so they run only against a local endpoint\"\n\
         \x20       )\n\
         \x20   where = {\"region_name\": \"us-east-1\", \"endpoint_url\": url}\n\
         \x20   # A local endpoint takes any credentials: the environment's when it has them.\n\
         \x20   where[\"aws_access_key_id\"] = os.environ.get(\"AWS_ACCESS_KEY_ID\", \"dynalab\")\n\
         \x20   where[\"aws_secret_access_key\"] = os.environ.get(\"AWS_SECRET_ACCESS_KEY\", \"dynalab\")\n\
         \x20   if not endpoint_holds_fixture[0]:\n\
         \x20       plain = boto3.client(\"dynamodb\", **where)\n\
         \x20       for table in FIXTURE[\"tables\"]:\n\
         \x20           name = table[\"TableName\"]\n\
         \x20           if table.get(\"DeletionProtectionEnabled\"):\n\
         \x20               try:\n\
         \x20                   plain.update_table(TableName=name, DeletionProtectionEnabled=False)\n\
         \x20               except plain.exceptions.ClientError:\n\
         \x20                   pass\n\
         \x20           try:\n\
         \x20               plain.delete_table(TableName=name)\n\
         \x20           except plain.exceptions.ResourceNotFoundException:\n\
         \x20               pass\n\
         \x20           plain.create_table(**wire(table))\n\
         \x20       for table, items in FIXTURE[\"items\"].items():\n\
         \x20           for first in range(0, len(items), 25):\n\
         \x20               batch = items[first : first + 25]\n\
         \x20               unprocessed = {table: [{\"PutRequest\": {\"Item\": wire(item)}} for item in batch]}\n\
         \x20               while unprocessed:\n\
         \x20                   unprocessed = plain.batch_write_item(RequestItems=unprocessed).get(\"UnprocessedItems\")\n\
         \x20       for call in FIXTURE[\"setup\"]:\n\
         \x20           getattr(plain, xform_name(call[\"operation\"]))(**wire(call[\"request\"]))\n\
         \x20   endpoint_holds_fixture[0] = not writes\n\
         \x20   return boto3.resource(\"dynamodb\", **where).meta.client\n\n\n\
         def wire(value):\n\
         \x20   \"\"\"A fixture value as botocore sends it: binary attribute values (base64 in JSON) as bytes.\"\"\"\n\
         \x20   if isinstance(value, list):\n\
         \x20       return [wire(v) for v in value]\n\
         \x20   if not isinstance(value, dict):\n\
         \x20       return value\n\
         \x20   if len(value) == 1 and isinstance(value.get(\"B\"), str):\n\
         \x20       return {\"B\": base64.b64decode(value[\"B\"])}\n\
         \x20   if len(value) == 1 and isinstance(value.get(\"BS\"), list):\n\
         \x20       return {\"BS\": [base64.b64decode(b) for b in value[\"BS\"]]}\n\
         \x20   return {key: wire(field) for key, field in value.items()}\n\n\n\
         def key_of(item, names):\n\
         \x20   \"\"\"The key attributes ``names`` of an item (those it has).\"\"\"\n\
         \x20   return None if item is None else {name: item[name] for name in names if name in item}\n",
    );
    for function in &access.functions {
        out.push_str("\n\n");
        out.push_str(&test_text(access, function));
    }
    // Only what the tests use is imported.
    let decimal = if out.contains("Decimal(") { "from decimal import Decimal\n" } else { "" };
    let client_error =
        if out.contains("raises(ClientError)") { "from botocore.exceptions import ClientError\n" } else { "" };
    out.replacen("{decimal}", decimal, 1).replacen("{client_error}", client_error, 1)
}

fn test_text(access: &Access, function: &Function) -> String {
    let mut out = format!(
        "def test_{}(load):\n    \"\"\"{} — {}\"\"\"\n    dynamodb, {} = load(writes={})\n",
        function.name.snake(),
        function.id,
        function.description.replace('"', "'"),
        if function.error.is_some() { "_" } else { "consumed" },
        if function.writes() { "True" } else { "False" }
    );
    let mut arguments = vec!["dynamodb".to_string()];
    arguments.extend((0..function.parameters.len()).map(|i| argument(function, i)));
    let call = format!("access.{}({})", function.name.snake(), arguments.join(", "));
    if let Some((name, message)) = &function.error {
        if !function.error_expected {
            let _ = writeln!(out, "    # The proof saw this fail although the design did not expect it: {message}");
        }
        let _ = writeln!(out, "    with pytest.raises(ClientError) as refused:\n        {call}");
        let _ = writeln!(out, "    assert refused.value.response[\"Error\"][\"Code\"] == {}", quoted(name));
        return out;
    }
    let has_result = function.calls.iter().any(|c| c.result() != ResultKind::Nothing);
    if has_result {
        let _ = writeln!(out, "    result = {call}");
    } else {
        let _ = writeln!(out, "    {call}");
    }
    let calls = function.calls.len();
    for (i, call) in function.calls.iter().enumerate() {
        let result = if calls == 1 { "result".to_string() } else { format!("result[{i}]") };
        let keys = access
            .tables
            .iter()
            .find(|t| Some(&t.table) == call.table.as_ref())
            .map(|t| t.keys.iter().map(|k| quoted(k)).collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        let syntax = Py(function);
        match call.result() {
            ResultKind::Item => match call.returned.first() {
                Some(key) => {
                    let _ =
                        writeln!(out, "    assert key_of({result}, [{keys}]) == {}", fold::plain_inline(&syntax, key));
                }
                None => {
                    let _ = writeln!(out, "    assert {result} is None");
                }
            },
            ResultKind::Page => {
                let expected = Plain::List(call.returned.clone());
                let _ = writeln!(
                    out,
                    "    assert [key_of(item, [{keys}]) for item in {result}.items] == {}",
                    fold::plain(&syntax, &expected, 1)
                );
                let _ = writeln!(
                    out,
                    "    assert ({result}.next_page_key is not None) is {}, \"the page {}\"",
                    if call.paged { "True" } else { "False" },
                    if call.paged { "ends before the last item" } else { "holds every item" }
                );
            }
            ResultKind::Items => {
                let _ = writeln!(out, "    assert len({result}) == {}", call.returned_count);
            }
            ResultKind::Nothing => {}
        }
    }
    let units: f64 = function.calls.iter().map(|c| c.units).sum();
    let _ = writeln!(
        out,
        "    assert sum(consumed) == {}, \"capacity units, as the proof reported\"",
        crate::numbers::decimal(units)
    );
    out
}

/// `from typing import …` (and `Decimal`) for the names `body` uses, so nothing unused is imported.
fn imports(body: &str) -> String {
    let uses = |name: &str| {
        body.match_indices(name).any(|(at, _)| {
            let before = body[..at].chars().next_back();
            let after = body[at + name.len()..].chars().next();
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let mut out = String::new();
    if uses("dataclass") {
        out.push_str("from dataclasses import dataclass\n");
    }
    if uses("Decimal") {
        out.push_str("from decimal import Decimal\n");
    }
    let typing: Vec<&str> =
        ["Any", "Dict", "List", "Optional", "Set", "TypedDict", "Union"].into_iter().filter(|n| uses(n)).collect();
    if !typing.is_empty() {
        let _ = writeln!(out, "from typing import {}", typing.join(", "));
    }
    out
}
