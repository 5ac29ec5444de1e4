//! The MCP server's tools, written for an agent that designs DynamoDB tables by the access-pattern
//! method: inventory → keys and indexes → prove it by running every pattern. Each tool answers with
//! a short text for the model to read and the same facts as `structuredContent`; a tool that could
//! not do its job says why with `isError`, and no answer exceeds [`MAX_TEXT`].

use dynalab_engine::explain::Step;
use dynalab_engine::{Engine, Operation, SystemClock};
use dynalab_lab::workbook::analysis::cost::Bill;
use dynalab_lab::workbook::analysis::DesignResult;
use dynalab_lab::workbook::check::{check_text, CheckedDesign};
use dynalab_lab::workbook::{compare as comparison, report};
use dynalab_lab::{examples, fixtures};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::sync::Arc;

/// The most characters one answer's text carries; longer results are cut with a note saying how.
pub const MAX_TEXT: usize = 60_000;
/// The largest design file read from a path.
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

pub const INSTRUCTIONS: &str = "Dynalab is DynamoDB's exact semantics in memory (items, key conditions, paging at 1 MB, indexes, transactions, capacity units, DynamoDB's error names and messages). Use it to prove a table design: write the access-pattern inventory and the keys, then check_design runs every pattern as the one GetItem, Query or transaction it maps to and judges it (a Scan or a client-side join fails; hot partition keys against 3,000 RCU / 1,000 WCU; monthly cost). The session also has one engine of its own for trying requests: run_operation, load_items, explain_capacity, list_tables, describe_table. Nothing leaves this machine.";

/// One session: the engine the operation tools share.
pub struct Session {
    engine: Engine,
}

impl Session {
    pub fn new() -> Self {
        Self { engine: Engine::new(Arc::new(SystemClock)) }
    }

    /// Runs the tool `name`; `None` when there is no such tool.
    pub fn call(&mut self, name: &str, arguments: &Value) -> Option<Value> {
        let outcome = match name {
            "run_operation" => self.run_operation(arguments),
            "explain_capacity" => self.explain_capacity(arguments),
            "load_items" => self.load_items(arguments),
            "list_tables" => Ok(self.list_tables()),
            "describe_table" => self.describe_table(arguments),
            "check_design" => check_design(arguments),
            "compare_designs" => compare_designs(arguments),
            "export_design" => export_design(arguments),
            _ => return None,
        };
        Some(match outcome {
            Ok(done) => done.into_result(false),
            Err(failure) => failure.into_result(true),
        })
    }

    fn run_operation(&mut self, arguments: &Value) -> Result<Answer, Answer> {
        let (operation, request) = operation_and_request(arguments)?;
        ran(operation, self.engine.run(operation.name(), &request))
    }

    /// On a copy of the session's engine: what the request would consume, without changing anything.
    fn explain_capacity(&mut self, arguments: &Value) -> Result<Answer, Answer> {
        let (operation, request) = operation_and_request(arguments)?;
        let mut copy = self.engine.clone();
        let outcome = copy.run(operation.name(), &request);
        let steps: Vec<Value> = outcome.steps.iter().map(step).collect();
        let total: f64 = outcome.steps.iter().map(|s| s.units).sum();
        let mut text = format!("{operation} would consume {total} capacity units (nothing was changed):\n");
        for s in &outcome.steps {
            let _ = writeln!(text, "- {}: {} ({})", target(s), s.arithmetic(), s.why);
        }
        if outcome.steps.is_empty() {
            text.push_str("- no capacity: the operation reports none, or it failed before reading or writing\n");
        }
        if let Err(error) = &outcome.response {
            let _ = writeln!(text, "It fails: {}: {}", error.kind.name(), error.message);
        }
        let error = outcome.response.as_ref().err().map(|e| json!({"name": e.kind.name(), "message": e.message}));
        Ok(Answer::new(text, json!({"operation": operation.name(), "units": total, "capacity": steps, "error": error})))
    }

    /// Writes items (a list, a fixture text, or a built-in example) all or nothing.
    fn load_items(&mut self, arguments: &Value) -> Result<Answer, Answer> {
        let table = arguments.get("table").and_then(Value::as_str);
        let requests: Vec<(String, Value)> = if let Some(id) = arguments.get("example").and_then(Value::as_str) {
            let Some(example) = examples::example(id) else {
                let known: Vec<&str> = examples::gallery().iter().map(|e| e.id).collect();
                return Err(Answer::refusal(format!("No example `{id}`; the examples are: {}", known.join(", "))));
            };
            example.setup.into_iter().map(|(op, request)| (op.to_string(), request)).collect()
        } else {
            let text = match (arguments.get("items"), arguments.get("fixture")) {
                (Some(items @ Value::Array(_)), None) => items.to_string(),
                (None, Some(Value::String(text))) => text.clone(),
                _ => return Err(Answer::refusal("Give exactly one of `items` (an array of items, DynamoDB JSON or plain JSON), `fixture` (the text of a BatchWriteItem request, a JSON array or export JSON lines) or `example`")),
            };
            let (_, writes) = fixtures::parse_fixture(&text).map_err(Answer::refusal)?;
            let requests = fixtures::requests(&writes, table)
                .map_err(|e| Answer::refusal(format!("{e} (the `table` argument)")))?;
            requests.into_iter().map(|(op, request)| (op.to_string(), request)).collect()
        };
        let mut loaded = self.engine.clone();
        let mut written: Map<String, Value> = Map::new();
        for (i, (operation, request)) in requests.iter().enumerate() {
            if let Err(error) = loaded.execute_value(operation, request) {
                return Err(Answer::refusal(format!(
                    "Nothing was loaded: write {} of {} ({operation} on `{}`) failed: {}: {}",
                    i + 1,
                    requests.len(),
                    request["TableName"].as_str().unwrap_or("?"),
                    error.kind.name(),
                    error.message
                )));
            }
            if let Some(name) =
                request["TableName"].as_str().filter(|_| operation != "CreateTable" && operation != "UpdateTimeToLive")
            {
                let count = written.entry(name.to_string()).or_insert(json!(0));
                *count = json!(count.as_u64().unwrap_or(0) + 1);
            }
        }
        self.engine = loaded;
        let summary: Vec<String> = written.iter().map(|(t, n)| format!("{n} writes to `{t}`")).collect();
        Ok(Answer::new(
            format!("Loaded: {}.", if summary.is_empty() { "no items".into() } else { summary.join(", ") }),
            json!({"writes": written}),
        ))
    }

    fn list_tables(&self) -> Answer {
        let shapes: Vec<_> =
            self.engine.table_names().iter().filter_map(|name| self.engine.outline(name).ok()).collect();
        let mut text = if shapes.is_empty() { "No tables yet.\n".to_string() } else { String::new() };
        for shape in &shapes {
            let _ = writeln!(
                text,
                "- {} (partition key {}{}): {} items, {} bytes; indexes: {}",
                shape.name,
                shape.partition_key,
                shape.sort_key.as_ref().map(|s| format!(", sort key {s}")).unwrap_or_default(),
                shape.totals.items,
                shape.totals.bytes,
                shape.indexes.len(),
            );
        }
        Answer::new(text, json!({"tables": shapes}))
    }

    fn describe_table(&mut self, arguments: &Value) -> Result<Answer, Answer> {
        let Some(name) = arguments.get("table").and_then(Value::as_str) else {
            return Err(Answer::refusal("Give `table`, the table's name"));
        };
        let described = self
            .engine
            .execute_value("DescribeTable", &json!({"TableName": name}))
            .map_err(|e| Answer::refusal(format!("{}: {}", e.kind.name(), e.message)))?;
        let shape = self.engine.shape(name).ok();
        let measured = |size: Option<Option<usize>>| size.flatten().map_or("?".into(), |b| b.to_string());
        let text = format!(
            "{}\n\nMeasured: largest item {} bytes, largest item collection {} bytes.",
            bounded_json(&described),
            measured(shape.as_ref().map(|s| s.largest_item)),
            measured(shape.as_ref().map(|s| s.largest_collection)),
        );
        Ok(Answer::new(text, json!({"table": described["Table"], "shape": shape})))
    }
}

/// What a tool found: text for the model, the same facts structured.
pub struct Answer {
    text: String,
    structured: Value,
}

impl Answer {
    fn new(text: impl Into<String>, structured: Value) -> Self {
        Self { text: text.into(), structured }
    }

    fn refusal(message: impl Into<String>) -> Self {
        let message = message.into();
        Self { structured: json!({"error": message}), text: message }
    }

    fn into_result(self, is_error: bool) -> Value {
        let text = cut(&self.text);
        let structured = if self.structured.to_string().len() > MAX_TEXT * 2 {
            json!({"note": "too large to repeat here; the text has it, cut to its limit"})
        } else {
            self.structured
        };
        json!({"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": is_error})
    }
}

/// `text` within [`MAX_TEXT`] characters, saying what was cut.
fn cut(text: &str) -> String {
    if text.len() <= MAX_TEXT {
        return text.to_string();
    }
    let mut end = MAX_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n… cut: {} more characters not shown", &text[..end], text.len() - end)
}

fn operation_and_request(arguments: &Value) -> Result<(Operation, String), Answer> {
    let name = arguments.get("operation").and_then(Value::as_str).unwrap_or("");
    let Some(operation) = Operation::from_name(name) else {
        let names: Vec<&str> = Operation::ALL.iter().map(|op| op.name()).collect();
        return Err(Answer::refusal(format!("`operation` must be one of: {} (got `{name}`)", names.join(", "))));
    };
    let request = match arguments.get("request") {
        None => "{}".to_string(),
        Some(Value::String(text)) => text.clone(),
        Some(value @ Value::Object(_)) => value.to_string(),
        Some(_) => return Err(Answer::refusal("`request` must be the request object in DynamoDB JSON")),
    };
    Ok((operation, request))
}

fn target(step: &Step) -> String {
    match &step.index {
        Some(index) => format!("{}/{index}", step.table),
        None => step.table.clone(),
    }
}

fn step(step: &Step) -> Value {
    let mut value = step.to_json();
    value["target"] = json!(target(step));
    value
}

/// An operation's outcome: the response (long item lists shortened) and the capacity arithmetic;
/// DynamoDB's error as a tool error.
fn ran(operation: Operation, outcome: dynalab_engine::Outcome) -> Result<Answer, Answer> {
    let capacity: Vec<Value> = outcome.steps.iter().map(step).collect();
    let mut text = String::new();
    for s in &outcome.steps {
        let _ = writeln!(text, "capacity: {}: {}", target(s), s.arithmetic());
    }
    match outcome.response {
        Ok(body) => {
            let response: Value =
                if body.is_empty() { json!({}) } else { serde_json::from_str(&body).unwrap_or(Value::Null) };
            let (shown, note) = shortened(&response);
            let mut reply = bounded_json(&shown);
            if let Some(note) = &note {
                let _ = write!(reply, "\n{note}");
            }
            Ok(Answer::new(
                reply + "\n" + &text,
                json!({"operation": operation.name(), "response": shown, "shortened": note, "capacity": capacity}),
            ))
        }
        Err(error) => {
            let message = format!("{}: {}", error.kind.name(), error.message);
            Err(Answer {
                structured: json!({"operation": operation.name(), "error": error.to_json(), "capacity": capacity}),
                text: message + "\n" + &text,
            })
        }
    }
}

/// Item lists (`Items`, `Records`, `Responses`) cut to what fits, with a note of how many are shown.
fn shortened(response: &Value) -> (Value, Option<String>) {
    if response.to_string().len() <= MAX_TEXT / 2 {
        return (response.clone(), None);
    }
    let mut shown = response.clone();
    let mut notes = Vec::new();
    let mut shorten = |name: String, list: &mut Vec<Value>| {
        let total = list.len();
        let mut size = 0;
        let keep = list.iter().take_while(|item| {
            size += item.to_string().len();
            size < MAX_TEXT / 4
        });
        let keep = keep.count();
        list.truncate(keep);
        notes.push(format!("{name}: {keep} of {total} shown"));
    };
    if let Some(object) = shown.as_object_mut() {
        for name in ["Items", "Records"] {
            if let Some(Value::Array(list)) = object.get_mut(name) {
                shorten(name.to_string(), list);
            }
        }
        if let Some(Value::Object(tables)) = object.get_mut("Responses") {
            for (table, list) in tables.iter_mut() {
                if let Value::Array(list) = list {
                    shorten(format!("Responses.{table}"), list);
                }
            }
        }
    }
    let note = format!("Shortened to fit (the response was {} bytes): {}. Count, ScannedCount and LastEvaluatedKey are the whole response's.", response.to_string().len(), notes.join("; "));
    (shown, Some(note))
}

fn bounded_json(value: &Value) -> String {
    cut(&serde_json::to_string_pretty(value).unwrap_or_default())
}

/// The design's text: `design` (text or an object) or `path` (a file on this machine).
fn design_text(arguments: &Value, design: &str, path: &str) -> Result<String, Answer> {
    match (arguments.get(design), arguments.get(path).and_then(Value::as_str)) {
        (Some(Value::String(text)), None) => Ok(text.clone()),
        (Some(value @ Value::Object(_)), None) => Ok(value.to_string()),
        (None, Some(file)) => {
            let size =
                std::fs::metadata(file).map_err(|e| Answer::refusal(format!("Cannot read `{file}`: {e}")))?.len();
            if size > MAX_FILE_BYTES {
                return Err(Answer::refusal(format!(
                    "`{file}` is {} MiB; designs are read up to {} MiB",
                    size >> 20,
                    MAX_FILE_BYTES >> 20
                )));
            }
            std::fs::read_to_string(file).map_err(|e| Answer::refusal(format!("Cannot read `{file}`: {e}")))
        }
        _ => Err(Answer::refusal(format!(
            "Give exactly one of `{design}` (the design as text or a JSON object) or `{path}` (a file path)"
        ))),
    }
}

fn checked(arguments: &Value, design: &str, path: &str) -> Result<CheckedDesign, Answer> {
    let text = design_text(arguments, design, path)?;
    check_text(&text, Arc::new(SystemClock)).map_err(|not| {
        let mut message = format!("The design was not checked (nothing ran):\n- {}", not.problems.join("\n- "));
        if !not.notes.is_empty() {
            let _ = write!(message, "\nThe import noted:\n- {}", not.notes.join("\n- "));
        }
        Answer { structured: json!({"problems": not.problems, "notes": not.notes}), text: message }
    })
}

/// Each pattern's verdict and what it was judged on, compact.
fn summary(result: &DesignResult) -> Value {
    let patterns: Vec<Value> = result
        .patterns
        .iter()
        .map(|p| {
            json!({"id": p.id, "verdict": p.verdict, "operation": p.operation, "table": p.table, "index": p.index,
                "items": p.items, "read_units": p.read_units, "write_units": p.write_units,
                "monthly_at_peak": p.monthly_at_peak, "reasons": p.reasons})
        })
        .collect();
    json!({"name": result.name, "verdict": result.verdict, "patterns": patterns, "hot_keys": result.hot_keys,
        "capacity": result.capacity, "deviations": result.deviations,
        "monthly_at_peak": result.cost.at_peak.total(), "monthly_expected": result.cost.expected.as_ref().map(Bill::total)})
}

fn check_design(arguments: &Value) -> Result<Answer, Answer> {
    let design = checked(arguments, "design", "path")?;
    let result = &design.checked.result;
    let mut text = format!("Verdict: {} ({}).\n", result.verdict.label(), design.source.describe());
    for note in &design.notes {
        let _ = writeln!(text, "Import note: {note}");
    }
    text.push('\n');
    text.push_str(&report::markdown(result));
    let mut structured = summary(result);
    structured["source"] = json!(design.source.describe());
    structured["notes"] = json!(design.notes);
    Ok(Answer::new(text, structured))
}

fn compare_designs(arguments: &Value) -> Result<Answer, Answer> {
    let a = checked(arguments, "a", "path_a")?;
    let b = checked(arguments, "b", "path_b")?;
    let (a, b) = (&a.checked.result, &b.checked.result);
    Ok(Answer::new(
        comparison::markdown(a, b),
        json!({"a": summary(a), "b": summary(b), "patterns": comparison::rows(a, b),
            "monthly_at_peak_difference": b.cost.at_peak.total() - a.cost.at_peak.total()}),
    ))
}

/// The design's infrastructure files (`dynalab export`), each with its contents.
fn export_design(arguments: &Value) -> Result<Answer, Answer> {
    let text = design_text(arguments, "design", "path")?;
    let imported = dynalab_lab::workbook::import::import(&text).map_err(|problem| Answer {
        structured: json!({"problems": [problem]}),
        text: format!("The design could not be read (nothing was exported): {problem}"),
    })?;
    let exported = dynalab_lab::export::export(&imported.workbook);
    if let Some(out) = arguments.get("out").and_then(Value::as_str) {
        return write_export(&exported, std::path::Path::new(out), &imported.notes);
    }
    let mut said = format!("{} files for `{}`:\n", exported.files.len(), imported.workbook.name);
    for (name, contents) in &exported.files {
        let _ = write!(said, "\n## {name}\n\n```\n{contents}```\n");
    }
    for note in &exported.notes {
        let _ = writeln!(said, "To finish by hand: {note}");
    }
    let total: usize = exported.files.iter().map(|(_, contents)| contents.len()).sum();
    // Past the answer's limit the files are listed by size: `out` writes them whole.
    let whole = total <= MAX_TEXT;
    if !whole {
        let _ = writeln!(said, "The files hold {total} characters, more than an answer carries: give `out` (a folder) to have them written there whole.");
    }
    let files: Vec<Value> = exported
        .files
        .iter()
        .map(|(name, contents)| {
            if whole {
                json!({"name": name, "contents": contents})
            } else {
                json!({"name": name, "bytes": contents.len()})
            }
        })
        .collect();
    Ok(Answer::new(said, json!({"files": files, "notes": exported.notes, "import_notes": imported.notes})))
}

/// The export written into the folder `out` (made if missing); the answer lists each file and its size.
fn write_export(
    exported: &dynalab_lab::export::Exported,
    out: &std::path::Path,
    import_notes: &[String],
) -> Result<Answer, Answer> {
    let mut said = format!("{} files written to `{}`:\n", exported.files.len(), out.display());
    let mut files = Vec::new();
    for (name, contents) in &exported.files {
        let path = out.join(name);
        path.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, contents))
            .map_err(|e| Answer::refusal(format!("Cannot write `{}`: {e}", path.display())))?;
        let _ = writeln!(said, "- {name} ({} bytes)", contents.len());
        files.push(json!({"name": name, "bytes": contents.len(), "path": path.to_string_lossy()}));
    }
    for note in &exported.notes {
        let _ = writeln!(said, "To finish by hand: {note}");
    }
    Ok(Answer::new(said, json!({"files": files, "notes": exported.notes, "import_notes": import_notes})))
}

/// The tools, as `tools/list` gives them.
pub fn list() -> Value {
    let operation_names: Vec<&str> = Operation::ALL.iter().map(|op| op.name()).collect();
    let operation_input = json!({"type": "object", "required": ["operation"], "properties": {
        "operation": {"description": "The operation's name.", "type": "string", "enum": operation_names},
        "request": {"description": "The request, as the DynamoDB API takes it (DynamoDB JSON).", "type": "object"}
    }});
    let design_input = |text: &str, path: &str| {
        json!({
            text: {"description": "The design: a Dynalab workbook (format dynalab-workbook/1, with tables, fixture items and access patterns), a design note in Markdown (the modelling method's tables, or the DynamoDB MCP server's dynamodb_data_model.md), the DynamoDB MCP server's dynamodb_data_model.json, a design skill cost model, a NoSQL Workbench model, a CloudFormation, SAM or Serverless template, a Terraform file or a OneTable schema — as text or as a JSON object.", "type": ["string", "object"]},
            path: {"description": "Instead of the design itself: the path of its file on this machine.", "type": "string"}
        })
    };
    let mut export_input = design_input("design", "path");
    export_input["out"] = json!({"description": "A folder on this machine to write the files into (made if missing). Without it the files come back in the answer, listed by size when they are larger than an answer carries.", "type": "string"});
    json!([
        {
            "name": "check_design",
            "title": "Prove a DynamoDB design",
            "description": "The last step of a DynamoDB design: prove it. Runs every access pattern of the design on a fresh engine loaded with its items, each as the single GetItem, Query, batch or transaction it maps to, and judges it: the call made (a Scan or a client-side join fails; reading every shard of a sharded key is scatter-gather and passes), items returned against what the pattern expects, read and write units per table and index, the busiest partition key at the pattern's peak rate against 3,000 RCU / 1,000 WCU per key, provisioned capacity against peak demand, and monthly cost at peak and average rates. Returns a verdict per pattern with the reason a reviewer would give, and the design note in Markdown. Call it once the access-pattern inventory (pattern, key inputs, peak rate, consistency) and the keys and indexes are written; fix what fails and call it again. Invalid designs come back as a list of problems with where they are; nothing runs then.",
            "inputSchema": {"type": "object", "properties": design_input("design", "path")},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        },
        {
            "name": "compare_designs",
            "title": "Compare two DynamoDB designs",
            "description": "Checks two designs of the same access patterns (e.g. before and after adding a GSI, sharding a hot key or denormalising) and sets them side by side per pattern (paired by what each does: the same access pattern by name, else the same table or index, operation and key shape; never by id): call made, units, monthly cost and verdict, and the difference in total monthly cost. Use it to choose between alternatives with numbers.",
            "inputSchema": {"type": "object", "properties": {
                "a": {"description": "The first design (text or JSON object; any format check_design takes).", "type": ["string", "object"]},
                "path_a": {"description": "Instead of `a`: its file path.", "type": "string"},
                "b": {"description": "The second design.", "type": ["string", "object"]},
                "path_b": {"description": "Instead of `b`: its file path.", "type": "string"}
            }},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        },
        {
            "name": "export_design",
            "title": "Export a DynamoDB design as infrastructure and access code",
            "description": "Writes a design (any format check_design takes) as the files a team deploys: cloudformation.yaml, serverless.yml, main.tf (Terraform) and cdk/design-stack.ts (a CDK TableV2 stack), with a README. Each holds the tables, keys, indexes and projections, billing and declared capacity with auto scaling, time to live, streams, deletion protection and tags the design holds, and reads back through check_design as the same tables. When the design has access patterns, also the access code: typescript/access.ts (one function per pattern over the AWS SDK v3 document client, its parameters the pattern's key inputs, the call exactly as proven) and python/access.py (the same over boto3), each with a test per pattern that runs it on Dynalab's engine in process against fixture.json and expects the items, page end, capacity units or error the proof saw. Call it once check_design passes.",
            "inputSchema": {"type": "object", "properties": export_input},
            "annotations": {"readOnlyHint": false, "openWorldHint": false}
        },
        {
            "name": "run_operation",
            "title": "Run a DynamoDB operation",
            "description": "Runs one DynamoDB (or DynamoDB Streams) operation on this session's in-memory engine, exactly as the service would answer it — same items, paging (1 MB pages, Limit, LastEvaluatedKey), errors (name and message) — and returns the response with the capacity it consumed and the arithmetic (bytes → 4 KB read units, halved for eventual consistency; 1 KB write units; which indexes a write touched). The request is the API's JSON with attribute values in DynamoDB JSON ({\"S\": \"USER#1\"}). Use it to create tables, write items and try each access pattern's request before writing it into a design.",
            "inputSchema": operation_input,
            "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
        },
        {
            "name": "explain_capacity",
            "title": "Explain what a request would cost",
            "description": "Says what one request would consume on this session's engine, step by step (which table or index, which partition key, how many bytes, how many units and why), without changing anything: it runs on a copy. Use it to see why a Query costs what it does (item sizes, filters reading items they then drop, eventually consistent halving) or which indexes a write would touch.",
            "inputSchema": operation_input,
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        },
        {
            "name": "load_items",
            "title": "Load items into the session's tables",
            "description": "Writes many items at once into this session's engine, all or nothing (the first failing item is named and nothing is kept): `items` (an array of items in DynamoDB JSON or plain JSON, with `table`), `fixture` (the text of a BatchWriteItem request, a JSON array, or DynamoDB export JSON lines) or `example` (`orders`: creates the orders example's table and items). Tables must exist first (run_operation CreateTable), except for an example.",
            "inputSchema": {"type": "object", "properties": {
                "table": {"description": "The table the items go to, when the items do not name one.", "type": "string"},
                "items": {"description": "Items, in DynamoDB JSON or plain JSON.", "type": "array", "items": {"type": "object"}},
                "fixture": {"description": "A fixture file's text.", "type": "string"},
                "example": {"description": "A built-in example's id.", "type": "string"}
            }},
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false}
        },
        {
            "name": "list_tables",
            "title": "List the session's tables",
            "description": "Every table of this session's engine with its keys, item count, size and indexes.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        },
        {
            "name": "describe_table",
            "title": "Describe one table",
            "description": "DescribeTable's answer for one table of this session's engine, with its largest item and largest item collection measured (an LSI's item collection is limited to 10 GB; an item to 400 KB).",
            "inputSchema": {"type": "object", "required": ["table"], "properties": {"table": {"description": "The table's name.", "type": "string"}}},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }
    ])
}
