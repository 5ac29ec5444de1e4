//! A request parsed into its operation's typed input. Parsing needs no engine, so the server does
//! it outside the engine's lock and holds the lock only for [`crate::Engine::apply`].

use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::operation::Operation;
use crate::ops;
use crate::value::{ENVELOPED_MARK, VALIDATION_MARK};
use serde::Serialize;

/// What [`Engine::apply`] did: the response (or DynamoDB's error) and whether the engine's state
/// changed, which is what a write log must record.
#[derive(Debug)]
pub struct Applied {
    pub response: Result<String>,
    pub changed: bool,
    /// The counts the output carried (items, scanned, next page).
    pub tally: crate::outcome::Tally,
}

/// An operation's request, parsed and ready to run.
pub struct Request {
    pub(crate) input: Input,
}

impl Request {
    /// An UpdateItem made from a PartiQL UPDATE: DynamoDB sizes it as the finished item only,
    /// without UpdateItem's charge for the statement (`ops::update_size`).
    pub(crate) fn size_update_as_finished_item(&mut self) {
        if let Input::UpdateItem(checked) = &mut self.input {
            checked.size_finished_item_only();
        }
    }
}

/// The answer to a name that is not an operation the engine runs.
pub fn unknown_operation(name: &str) -> DynamoError {
    match ops::cloud_only::feature(name) {
        Some(feature) => DynamoError::new(ErrorKind::UnknownOperation, ops::cloud_only::message(name, feature)),
        None => DynamoError::new(ErrorKind::UnknownOperation, ""),
    }
}

macro_rules! requests {
    ($($op:ident($input:ty) => |$engine:ident, $i:ident| $run:expr;)*) => {
        pub(crate) enum Input {
            $($op(<$input as Check>::Checked),)*
        }

        impl Request {
            /// Parses `body` (DynamoDB JSON; empty means `{}`) as `operation`'s request, failing as
            /// DynamoDB does on a body it cannot read.
            pub fn parse(operation: Operation, body: &str) -> Result<Self> {
                let body = if body.trim().is_empty() { "{}" } else { body };
                let named = table_arns_as_names(operation, body);
                let body = named.as_deref().unwrap_or(body);
                let input = match operation {
                    $(Operation::$op => {
                        let parsed: $input = read_input(operation, body)?;
                        Input::$op(parsed.check().map_err(|e| e.answered_by(operation))?)
                    })*
                };
                Ok(Self { input })
            }

            /// The operation it is a request of.
            pub fn operation(&self) -> Operation {
                match self.input {
                    $(Input::$op(_) => Operation::$op,)*
                }
            }
        }

        impl Engine {
            pub(crate) fn run_input(&mut self, input: Input) -> Result<(String, crate::outcome::Tally)> {
                use crate::outcome::Tallied;
                match input {
                    $(Input::$op($i) => {
                        let $engine = &mut *self;
                        let output = $run.map_err(|e: DynamoError| e.answered_by(Operation::$op))?;
                        Ok((output.body()?, output.tally()))
                    })*
                }
            }
        }
    };
}

/// What a request's input can be checked for without the engine: everything DynamoDB checks
/// before it looks at the table (parameter constraints, expressions and their placeholders, item
/// values and size). Operations without such a step keep their input as it was read.
pub(crate) trait Check: Sized {
    type Checked;
    fn check(self) -> Result<Self::Checked>;
}

macro_rules! checked_when_run {
    ($($input:ty),*) => {
        $(impl Check for $input {
            type Checked = Self;
            fn check(self) -> Result<Self> {
                Ok(self)
            }
        })*
    };
}

macro_rules! checked_before_run {
    ($($module:ident::$input:ident),*) => {
        $(impl Check for ops::$module::$input {
            type Checked = ops::$module::Checked;
            fn check(self) -> Result<Self::Checked> {
                ops::$module::check(self)
            }
        })*
    };
}

checked_before_run!(
    put_item::PutItemInput,
    update_item::UpdateItemInput,
    delete_item::DeleteItemInput,
    get_item::GetItemInput,
    query::QueryInput,
    scan::ScanInput,
    transact_write_items::TransactWriteItemsInput
);

checked_when_run!(
    ops::create_table::CreateTableInput,
    ops::describe_table::DescribeTableInput,
    ops::list_tables::ListTablesInput,
    ops::delete_table::DeleteTableInput,
    ops::update_table::UpdateTableInput,
    ops::batch_get_item::BatchGetItemInput,
    ops::batch_write_item::BatchWriteItemInput,
    ops::transact_get_items::TransactGetItemsInput,
    ops::update_time_to_live::UpdateTimeToLiveInput,
    ops::describe_time_to_live::DescribeTimeToLiveInput,
    ops::describe_continuous_backups::DescribeContinuousBackupsInput,
    ops::update_continuous_backups::UpdateContinuousBackupsInput,
    ops::tags::TagResourceInput,
    ops::tags::UntagResourceInput,
    ops::tags::ListTagsOfResourceInput,
    ops::describe_limits::DescribeLimitsInput,
    ops::describe_endpoints::DescribeEndpointsInput,
    ops::list_streams::ListStreamsInput,
    ops::describe_stream::DescribeStreamInput,
    ops::get_shard_iterator::GetShardIteratorInput,
    ops::get_records::GetRecordsInput,
    ops::execute_statement::ExecuteStatementInput,
    ops::batch_execute_statement::BatchExecuteStatementInput,
    ops::execute_transaction::ExecuteTransactionInput,
    ops::search_vectors::SearchVectorsInput
);

requests! {
    CreateTable(ops::create_table::CreateTableInput) => |e, i| ops::create_table::run(e, i);
    DescribeTable(ops::describe_table::DescribeTableInput) => |e, i| ops::describe_table::run(e, i);
    ListTables(ops::list_tables::ListTablesInput) => |e, i| ops::list_tables::run(e, &i);
    DeleteTable(ops::delete_table::DeleteTableInput) => |e, i| ops::delete_table::run(e, i);
    UpdateTable(ops::update_table::UpdateTableInput) => |e, i| ops::update_table::run(e, i);
    PutItem(ops::put_item::PutItemInput) => |e, i| ops::put_item::run_checked(e, i);
    GetItem(ops::get_item::GetItemInput) => |e, i| ops::get_item::run_checked(e, i);
    UpdateItem(ops::update_item::UpdateItemInput) => |e, i| ops::update_item::run_checked(e, i);
    DeleteItem(ops::delete_item::DeleteItemInput) => |e, i| ops::delete_item::run_checked(e, i);
    Query(ops::query::QueryInput) => |e, i| ops::query::run_checked(e, i);
    Scan(ops::scan::ScanInput) => |e, i| ops::scan::run_checked(e, i);
    SearchVectors(ops::search_vectors::SearchVectorsInput) => |e, i| ops::search_vectors::run(e, &i);
    BatchGetItem(ops::batch_get_item::BatchGetItemInput) => |e, i| ops::batch_get_item::run(e, i);
    BatchWriteItem(ops::batch_write_item::BatchWriteItemInput) => |e, i| ops::batch_write_item::run(e, i);
    TransactWriteItems(ops::transact_write_items::TransactWriteItemsInput) => |e, i| ops::transact_write_items::run_checked(e, i);
    TransactGetItems(ops::transact_get_items::TransactGetItemsInput) => |e, i| ops::transact_get_items::run(e, i);
    UpdateTimeToLive(ops::update_time_to_live::UpdateTimeToLiveInput) => |e, i| ops::update_time_to_live::run(e, i);
    DescribeTimeToLive(ops::describe_time_to_live::DescribeTimeToLiveInput) => |e, i| ops::describe_time_to_live::run(e, i);
    DescribeContinuousBackups(ops::describe_continuous_backups::DescribeContinuousBackupsInput) => |e, i| ops::describe_continuous_backups::run(e, i);
    UpdateContinuousBackups(ops::update_continuous_backups::UpdateContinuousBackupsInput) => |e, i| ops::update_continuous_backups::run(e, i);
    TagResource(ops::tags::TagResourceInput) => |e, i| ops::tags::tag_resource(e, i);
    UntagResource(ops::tags::UntagResourceInput) => |e, i| ops::tags::untag_resource(e, i);
    ListTagsOfResource(ops::tags::ListTagsOfResourceInput) => |e, i| ops::tags::list_tags_of_resource(e, &i);
    DescribeLimits(ops::describe_limits::DescribeLimitsInput) => |e, i| ops::describe_limits::run(e, i);
    DescribeEndpoints(ops::describe_endpoints::DescribeEndpointsInput) => |e, i| ops::describe_endpoints::run(e, i);
    ListStreams(ops::list_streams::ListStreamsInput) => |e, i| ops::list_streams::run(e, &i);
    DescribeStream(ops::describe_stream::DescribeStreamInput) => |e, i| ops::describe_stream::run(e, &i);
    GetShardIterator(ops::get_shard_iterator::GetShardIteratorInput) => |e, i| ops::get_shard_iterator::run(e, &i);
    GetRecords(ops::get_records::GetRecordsInput) => |e, i| ops::get_records::run(e, &i);
    ExecuteStatement(ops::execute_statement::ExecuteStatementInput) => |e, i| ops::execute_statement::run(e, &i);
    BatchExecuteStatement(ops::batch_execute_statement::BatchExecuteStatementInput) => |e, i| ops::batch_execute_statement::run(e, &i);
    ExecuteTransaction(ops::execute_transaction::ExecuteTransactionInput) => |e, i| ops::execute_transaction::run(e, &i);
}

impl Request {
    /// Whether running it may take long: it reads or writes many items (a Scan, a filtered Query,
    /// a batch, a transaction, a PartiQL statement). A server runs these away from the threads
    /// that answer short requests. GetItem, the single-item writes, an unfiltered Query (at most
    /// 1 MB, read in key order) and the control plane are short.
    pub fn may_run_long(&self) -> bool {
        match &self.input {
            Input::Query(checked) => checked.has_filter(),
            input => matches!(
                input,
                Input::Scan(_)
                    | Input::SearchVectors(_)
                    | Input::BatchGetItem(_)
                    | Input::BatchWriteItem(_)
                    | Input::TransactGetItems(_)
                    | Input::TransactWriteItems(_)
                    | Input::ExecuteStatement(_)
                    | Input::BatchExecuteStatement(_)
                    | Input::ExecuteTransaction(_)
            ),
        }
    }
}

impl Request {
    /// Whether [`Engine::read`] runs it: it only reads items or tables.
    pub fn only_reads(&self) -> bool {
        matches!(
            self.input,
            Input::GetItem(_)
                | Input::Query(_)
                | Input::Scan(_)
                | Input::SearchVectors(_)
                | Input::BatchGetItem(_)
                | Input::TransactGetItems(_)
                | Input::ListTables(_)
        )
    }
}

impl Engine {
    /// Runs a request that only reads — GetItem, Query, Scan, BatchGetItem, TransactGetItems,
    /// ListTables — through a shared reference: a server runs these side by side, so a long Scan
    /// holds up no other read. Any other request is given back, to [`Engine::apply`].
    // The request is given back by value: boxing it would cost every write an allocation.
    #[allow(clippy::result_large_err)]
    pub fn read(&self, request: Request) -> std::result::Result<Applied, Request> {
        let answer = match request.input {
            Input::GetItem(i) => answered(ops::get_item::run_checked(self, i), Operation::GetItem),
            Input::Query(i) => answered(ops::query::run_checked(self, i), Operation::Query),
            Input::Scan(i) => answered(ops::scan::run_checked(self, i), Operation::Scan),
            Input::SearchVectors(i) => answered(ops::search_vectors::run(self, &i), Operation::SearchVectors),
            Input::BatchGetItem(i) => answered(ops::batch_get_item::run(self, i), Operation::BatchGetItem),
            Input::TransactGetItems(i) => answered(ops::transact_get_items::run(self, i), Operation::TransactGetItems),
            Input::ListTables(i) => answered(ops::list_tables::run(self, &i), Operation::ListTables),
            input => return Err(Request { input }),
        };
        Ok(match answer {
            Ok((body, tally)) => Applied { response: Ok(body), changed: false, tally },
            Err(error) => Applied { response: Err(error), changed: false, tally: crate::outcome::Tally::default() },
        })
    }
}

fn answered<O: ResponseBody + crate::outcome::Tallied>(
    output: Result<O>,
    operation: Operation,
) -> Result<(String, crate::outcome::Tally)> {
    let output = output.map_err(|e| e.answered_by(operation))?;
    Ok((output.body()?, output.tally()))
}

/// The ARN prefix of this account's tables (`crate::REGION`, `crate::ACCOUNT_ID`; a test keeps
/// them in step).
const OWN_TABLE_ARN_PREFIX: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/";

/// The table `sent` names: the name itself, or the name in an ARN of this account's tables
/// (another account's or region's ARN stays as sent, and fails as a name does).
pub(crate) fn table_named_by(sent: &str) -> &str {
    sent.strip_prefix(OWN_TABLE_ARN_PREFIX).filter(|n| !n.contains('/')).unwrap_or(sent)
}

/// A batch's `RequestItems` keyed by table names: a key that is one of this account's tables' ARNs
/// becomes the table's name, as DynamoDB Local answers (its `Responses` are keyed by the name).
/// `Err` names a table given twice, by its name and by its ARN.
pub(crate) fn keyed_by_table_name<V>(
    request_items: std::collections::BTreeMap<String, V>,
) -> std::result::Result<std::collections::BTreeMap<String, V>, String> {
    let mut named = std::collections::BTreeMap::new();
    for (sent, value) in request_items {
        let name = table_named_by(&sent).to_string();
        if named.insert(name.clone(), value).is_some() {
            return Err(name);
        }
    }
    Ok(named)
}

/// DynamoDB takes a table's ARN wherever its API model types `TableName` as a `TableArn`: the
/// single-table operations and each action of a transaction. Such a body is read with the ARNs of
/// this account's tables replaced by the tables' names (other ARNs stay, and fail as names do).
/// Batch operations take ARNs as their `RequestItems` keys too, and answer keyed by the tables'
/// names (`keyed_by_table_name`); CreateTable takes names only.
fn table_arns_as_names(operation: Operation, body: &str) -> Option<String> {
    use serde_json::Value;
    // Every request passes here: one prebuilt SIMD search, not a substring search set up anew.
    static FINDER: std::sync::OnceLock<memchr::memmem::Finder<'static>> = std::sync::OnceLock::new();
    let prefix = OWN_TABLE_ARN_PREFIX;
    let finder = FINDER.get_or_init(|| memchr::memmem::Finder::new(prefix));
    finder.find(body.as_bytes())?;
    let takes_arn = !matches!(
        operation,
        Operation::CreateTable | Operation::BatchGetItem | Operation::BatchWriteItem | Operation::ListTables
    );
    if !takes_arn {
        return None;
    }
    let mut value: Value = serde_json::from_str(body).ok()?;
    let rename = |holder: &mut Value| {
        if let Some(Value::String(name)) = holder.get_mut("TableName") {
            let bare = table_named_by(name);
            if bare.len() != name.len() {
                *name = bare.to_string();
            }
        }
    };
    rename(&mut value);
    if let Some(Value::Array(items)) = value.get_mut("TransactItems") {
        for item in items {
            for kind in ["Get", "Put", "Update", "Delete", "ConditionCheck"] {
                if let Some(action) = item.get_mut(kind) {
                    rename(action);
                }
            }
        }
    }
    serde_json::to_string(&value).ok()
}

/// An operation's output as the body of its answer: JSON, or nothing at all.
trait ResponseBody {
    fn body(&self) -> Result<String>;
}

impl<O: Serialize> ResponseBody for O {
    fn body(&self) -> Result<String> {
        serde_json::to_string(self).map_err(|e| DynamoError::new(ErrorKind::InternalServerError, e.to_string()))
    }
}

impl ResponseBody for ops::query::ReadOutput<'_> {
    fn body(&self) -> Result<String> {
        ops::query::ReadOutput::body(self)
    }
}

impl ResponseBody for ops::tags::NoBody {
    fn body(&self) -> Result<String> {
        Ok(String::new())
    }
}

/// Reads a request's input. A member sent twice keeps its last value, as DynamoDB's parser
/// (Jackson, whose default that is) does — measured on DynamoDB Local, at the top level, in nested
/// structures and in AttributeValues, even when an earlier value has the wrong type. serde reads
/// members as they come and refuses a repeat, so a body it refuses is read again through a map
/// that keeps each member's last value; only a refused body pays for the second reading.
fn read_input<T: serde::de::DeserializeOwned>(operation: Operation, body: &str) -> Result<T> {
    if operation == Operation::SearchVectors {
        // Served by its own front end, whose strict reader words its own errors.
        return serde_json::from_str(body).map_err(|e| ops::search_vectors::unreadable(&e));
    }
    let error = match serde_json::from_str(body) {
        Ok(input) => return Ok(input),
        Err(error) => error,
    };
    if error.to_string().starts_with("recursion limit exceeded") {
        let depth = crate::deep_request::json_depth(body);
        if depth > crate::deep_request::SERDE_DEPTH {
            return crate::deep_request::read(operation, body, depth, |e| from_serde(operation, e, body));
        }
    }
    // serde stops at a repeated member before it has read the rest of the body.
    let repeated = error.to_string().starts_with("duplicate field");
    let last_values = match serde_json::from_str::<serde_json::Value>(body) {
        Ok(value) => serde_json::to_string(&value).unwrap_or_default(),
        // Not JSON after the repeat: say where, as the parser would.
        Err(syntax) if repeated => return Err(from_serde(operation, &syntax, body)),
        Err(_) => return Err(from_serde(operation, &error, body)),
    };
    match serde_json::from_str(&last_values) {
        Ok(input) => Ok(input),
        Err(again) if repeated => Err(from_serde(operation, &again, &last_values)),
        Err(_) => Err(from_serde(operation, &error, body)),
    }
}

/// A request that does not deserialise: DynamoDB's validation error if a value check failed while
/// reading, else a `SerializationException` worded as Coral words JSON type errors.
fn from_serde(operation: Operation, error: &serde_json::Error, body: &str) -> DynamoError {
    use serde_json::error::Category;
    let too_deep = error.to_string().starts_with("recursion limit exceeded");
    if matches!(error.classify(), Category::Syntax | Category::Eof) && !too_deep {
        return malformed_json(error, body);
    }
    let full = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let message = full.strip_suffix(&position).unwrap_or(&full);
    if let Some(validation) = message.strip_prefix(VALIDATION_MARK) {
        return DynamoError::validation(validation);
    }
    if let Some(validation) = message.strip_prefix(ENVELOPED_MARK) {
        let said = crate::value::worded(validation, crate::value::older_layer(operation));
        return DynamoError::request_validation(said).answered_by(operation);
    }
    if message.starts_with("recursion limit exceeded") {
        return DynamoError::validation(crate::value::NESTED_TOO_DEEP);
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        let token = match rest.split([',', ' ']).next().unwrap_or("") {
            "integer" | "floating" => "NUMBER_VALUE",
            "string" => "VALUE_STRING",
            "boolean" if rest.starts_with("boolean `true`") => "TRUE_VALUE",
            "boolean" => "FALSE_VALUE",
            "null" => "VALUE_NULL",
            "sequence" => return DynamoError::serialization("Unrecognized collection type class java.lang.String"),
            "map" => return DynamoError::serialization("Start of structure or map found where not expected."),
            _ => "VALUE",
        };
        let expected = rest.rsplit("expected ").next().unwrap_or("");
        let target = if expected.contains("bool") {
            "Boolean"
        } else if expected.contains("integer") || expected.starts_with('i') || expected.starts_with('u') {
            "Integer"
        } else if expected.contains("sequence") {
            return DynamoError::serialization("Unexpected value type in list");
        } else if expected.contains("map") || expected.contains("struct") || expected.contains("AttributeValue") {
            return DynamoError::serialization("Unexpected value type in payload");
        } else {
            "String"
        };
        return DynamoError::serialization(format!("{token} cannot be converted to {target}"));
    }
    if message.starts_with("invalid length") {
        // A JSON array where a structure was expected: serde would name the Rust struct.
        return DynamoError::serialization("Start of list found where not expected");
    }
    if let Some(rest) = message.strip_prefix("invalid value: ") {
        // A number out of the member's range (a Limit of 2^63): Coral cannot convert it either.
        let token = if rest.starts_with("integer") || rest.starts_with("floating") { "NUMBER_VALUE" } else { "VALUE" };
        return DynamoError::serialization(format!("{token} cannot be converted to Integer"));
    }
    if leaks_rust_names(message) {
        return DynamoError::serialization("Unexpected value type in payload");
    }
    DynamoError::serialization(message.to_string())
}

/// A body that is not JSON: a `SerializationException` worded as Coral's parser (Jackson) words
/// it, ending with where the error is, `line: L, column: C`, and the source redacted as Jackson
/// 2.16 and later do by default. No capture of the service's exact text was found
/// (docs/fidelity.md); the parser's own words (serde's) are never shown.
fn malformed_json(error: &serde_json::Error, body: &str) -> DynamoError {
    let line = body.lines().nth(error.line().saturating_sub(1)).unwrap_or("");
    let at = line.get(error.column().saturating_sub(1)..).and_then(|rest| rest.chars().next());
    let found = |c: char| {
        if c.is_control() {
            format!("(CTRL-CHAR, code {})", u32::from(c))
        } else {
            format!("'{c}' (code {})", u32::from(c))
        }
    };
    let text = error.to_string();
    let what = match at {
        _ if text.starts_with("EOF while parsing") => "Unexpected end-of-input".to_string(),
        Some(c) if text.starts_with("control character") => {
            format!("Illegal unquoted character ({}): has to be escaped using backslash to be included in string value", found(c))
        }
        Some(c) if text.starts_with("invalid escape") => format!("Unrecognized character escape {}", found(c)),
        Some(c) if text.starts_with("key must be a string") => {
            format!("Unexpected character ({}): was expecting double-quote to start field name", found(c))
        }
        Some(c) if text.starts_with("expected `:`") => {
            format!("Unexpected character ({}): was expecting a colon to separate field name and value", found(c))
        }
        Some(c) if text.starts_with("expected `,` or `}`") => {
            format!("Unexpected character ({}): was expecting comma to separate Object entries", found(c))
        }
        Some(c) if text.starts_with("expected `,` or `]`") => {
            format!("Unexpected character ({}): was expecting comma to separate Array entries", found(c))
        }
        Some(c) if text.starts_with("trailing") => {
            format!("Unexpected character ({}): expected end of input", found(c))
        }
        Some(c) => format!(
            "Unexpected character ({}): expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
            found(c)
        ),
        None => "Unexpected end-of-input".to_string(),
    };
    DynamoError::serialization(format!(
        "{what}\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: {}, column: {}]",
        error.line(),
        error.column()
    ))
}

/// Whether a serde message names Rust types (`struct PutItemInput`, `i64`, `variant`), which no
/// DynamoDB client should ever read.
fn leaks_rust_names(message: &str) -> bool {
    const RUST: [&str; 12] =
        ["struct ", "enum ", "variant", "Input", "i64", "u64", "i32", "u32", "usize", "f64", "u8", "tuple"];
    RUST.iter().any(|word| message.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server shares one engine between threads reading at once.
    const _: fn() = || {
        fn shared<T: Sync + Send>() {}
        shared::<Engine>();
    };

    #[test]
    fn reads_through_a_shared_reference_answer_as_apply_does_and_writes_are_given_back() {
        let mut engine = Engine::new(std::sync::Arc::new(crate::clock::FixedClock::at(0)));
        let table = r#"{"TableName":"things","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}"#;
        engine.execute("CreateTable", table).expect("table");
        for n in 0..5 {
            let item = format!(
                r#"{{"TableName":"things","Item":{{"pk":{{"S":"a"}},"sk":{{"N":"{n}"}},"v":{{"S":"x{n}"}}}}}}"#
            );
            engine.execute("PutItem", &item).expect("put");
        }
        let reads = [
            (
                Operation::GetItem,
                r#"{"TableName":"things","Key":{"pk":{"S":"a"},"sk":{"N":"2"}},"ReturnConsumedCapacity":"TOTAL"}"#,
            ),
            (
                Operation::Query,
                r#"{"TableName":"things","KeyConditionExpression":"pk = :a","ExpressionAttributeValues":{":a":{"S":"a"}},"Limit":2}"#,
            ),
            (
                Operation::Scan,
                r#"{"TableName":"things","FilterExpression":"v <> :x","ExpressionAttributeValues":{":x":{"S":"x1"}}}"#,
            ),
            (Operation::Scan, r#"{"TableName":"missing"}"#),
            (Operation::BatchGetItem, r#"{"RequestItems":{"things":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}}]}}}"#),
            (
                Operation::TransactGetItems,
                r#"{"TransactItems":[{"Get":{"TableName":"things","Key":{"pk":{"S":"a"},"sk":{"N":"4"}}}}]}"#,
            ),
            (Operation::ListTables, "{}"),
        ];
        for (operation, body) in reads {
            let request = Request::parse(operation, body).expect("parses");
            assert!(request.only_reads(), "{operation:?}");
            let shared = engine.read(request).ok().expect("a read");
            let applied = engine.apply(Request::parse(operation, body).expect("parses"));
            assert_eq!(shared.response, applied.response, "{operation:?} {body}");
            assert_eq!((shared.changed, shared.tally), (false, applied.tally), "{operation:?}");
        }
        let write =
            Request::parse(Operation::PutItem, r#"{"TableName":"things","Item":{"pk":{"S":"b"},"sk":{"N":"1"}}}"#);
        let write = write.expect("parses");
        assert!(!write.only_reads());
        let given_back = engine.read(write).expect_err("a write is given back");
        assert_eq!(given_back.operation(), Operation::PutItem);
        let long = |operation, body| Request::parse(operation, body).expect("parses").may_run_long();
        assert!(long(Operation::Scan, r#"{"TableName":"things"}"#));
        assert!(long(
            Operation::Query,
            r#"{"TableName":"things","KeyConditionExpression":"pk = :a","FilterExpression":"v = :a","ExpressionAttributeValues":{":a":{"S":"a"}}}"#
        ));
        assert!(!long(
            Operation::Query,
            r#"{"TableName":"things","KeyConditionExpression":"pk = :a","ExpressionAttributeValues":{":a":{"S":"a"}}}"#
        ));
        assert!(!long(Operation::GetItem, r#"{"TableName":"things","Key":{"pk":{"S":"a"},"sk":{"N":"2"}}}"#));
    }

    #[test]
    fn a_body_that_is_not_json_is_refused_in_the_parsers_words_with_its_position() {
        let cases = [
            (r#"{"Limit": "#, "Unexpected end-of-input", 1, 10),
            ("{Limit: 1}", "Unexpected character ('L' (code 76)): was expecting double-quote to start field name", 1, 2),
            (r#"{"Limit": 1 "x": 2}"#, "Unexpected character ('\"' (code 34)): was expecting comma to separate Object entries", 1, 13),
            ("{\n\"Limit\": 1} x", "Unexpected character ('x' (code 120)): expected end of input", 2, 13),
            ("{\"ExclusiveStartTableName\": \"a\u{4}b\"}", "Illegal unquoted character ((CTRL-CHAR, code 4)): has to be escaped using backslash to be included in string value", 1, 31),
        ];
        for (body, what, line, column) in cases {
            let error = Request::parse(Operation::ListTables, body).err().expect("refused");
            assert_eq!(error.kind, ErrorKind::Serialization, "{body}");
            let position = format!("line: {line}, column: {column}]");
            assert!(error.message.starts_with(what), "{body}: {}", error.message);
            assert!(error.message.ends_with(&position), "{body}: {}", error.message);
            assert!(
                !error.message.contains("EOF while") && !error.message.contains("key must be"),
                "{}",
                error.message
            );
        }
    }

    /// Words only a Rust library would use: no DynamoDB answer contains them.
    fn library_wording(message: &str) -> bool {
        const WORDS: [&str; 16] = [
            "`",
            "duplicate field",
            "missing field",
            "unknown field",
            "unknown variant",
            "invalid type",
            "invalid length",
            "at line",
            "EOF while",
            "struct ",
            "variant",
            "i64",
            "u64",
            "usize",
            "f64",
            "Input {",
        ];
        // Jackson's own location suffix quotes a feature name in backticks: that is DynamoDB's wording.
        let message = message.split("\n at [Source: REDACTED").next().unwrap_or(message);
        WORDS.iter().any(|word| message.contains(word))
    }

    #[test]
    fn a_member_sent_twice_keeps_its_last_value_everywhere() {
        let mut engine = Engine::new(std::sync::Arc::new(crate::SystemClock));
        let create = r#"{"TableName":"things","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}]}"#;
        engine.execute("CreateTable", create).expect("create");
        engine.execute("PutItem", r#"{"TableName":"things","Item":{"id":{"S":"y"},"v":{"S":"why"}}}"#).expect("put");
        for body in [
            r#"{"TableName":"nope","TableName":"things","Key":{"id":{"S":"y"}}}"#,
            r#"{"TableName":"things","Key":{"id":{"S":"x","S":"y"}}}"#,
            r#"{"TableName":"things","Key":{"id":{"N":"1"},"id":{"S":"y"}}}"#,
            r#"{"TableName":"things","Key":{"id":{"N":"1"}},"Key":{"id":{"S":"y"}}}"#,
            r#"{"TableName":"things","Key":{"id":{"S":"y"}},"ConsistentRead":"x","ConsistentRead":true}"#,
        ] {
            let answer = engine.execute("GetItem", body).unwrap_or_else(|e| panic!("{body}: {}", e.message));
            assert!(answer.contains("why"), "{body}: {answer}");
        }
        let later_wins = r#"{"TableName":"things","TableName":"nope","Key":{"id":{"S":"y"}}}"#;
        let error = engine.execute("GetItem", later_wins).expect_err("the later name is read");
        assert_eq!(error.kind, ErrorKind::ResourceNotFound);
        let nested = r#"{"TransactItems":[{"Put":{"TableName":"nope","TableName":"things","Item":{"id":{"S":"t"}}}}]}"#;
        engine.execute("TransactWriteItems", nested).unwrap_or_else(|e| panic!("{}", e.message));
    }

    #[test]
    fn no_malformed_body_is_answered_in_a_librarys_words() {
        let members = [
            "TableName",
            "Key",
            "Item",
            "Limit",
            "Select",
            "ReturnValues",
            "ReturnConsumedCapacity",
            "ConsistentRead",
            "KeySchema",
            "AttributeDefinitions",
            "BillingMode",
            "ProvisionedThroughput",
            "TransactItems",
            "RequestItems",
            "ExclusiveStartKey",
            "ExpressionAttributeNames",
            "ExpressionAttributeValues",
            "GlobalSecondaryIndexes",
            "GlobalSecondaryIndexUpdates",
            "StreamSpecification",
            "Tags",
            "TagKeys",
            "Statement",
            "Parameters",
            "Statements",
            "TimeToLiveSpecification",
            "ScanIndexForward",
            "Segment",
            "KeyConditions",
            "QueryFilter",
            "AttributeUpdates",
            "Expected",
            "AttributesToGet",
            "ResourceArn",
            "ShardIteratorType",
            "StreamArn",
            "ShardId",
            "SSESpecification",
            "TableClass",
            "ReturnItemCollectionMetrics",
        ];
        let shapes = [
            "1",
            "-1.5e3",
            "\"x\"",
            "true",
            "null",
            "[]",
            "[1]",
            "[{}]",
            "{}",
            "{\"a\":1}",
            "{\"S\":[]}",
            "[[]]",
            "[\"x\"]",
        ];
        let mut checked = 0;
        // SearchVectors' own front end answers in its deserialiser's words, as DynamoDB's does.
        for &operation in Operation::ALL.iter().filter(|op| **op != Operation::SearchVectors) {
            for member in members {
                for shape in shapes {
                    for body in [
                        format!(r#"{{"{member}":{shape}}}"#),
                        format!(r#"{{"TableName":"things","{member}":{shape},"{member}":{shape}}}"#),
                        format!(r#"{{"{member}":{shape},"{member}":{shape}"#),
                    ] {
                        if let Err(error) = Request::parse(operation, &body) {
                            checked += 1;
                            assert!(!library_wording(&error.message), "{operation} {body}: {}", error.message);
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn unreadable_bodies_never_name_rust_types() {
        let bodies = [
            "[]",
            "[1,2]",
            r#"{"TableName":"t","Limit":9223372036854775808}"#,
            r#"{"TableName":"t","Limit":-1e400}"#,
            r#"{"TableName":"t","Limit":"5"}"#,
            r#"{"TableName":"t","Limit":[1]}"#,
            r#"{"TableName":"t","Limit":{"a":1}}"#,
            r#"{"TableName":"t","Select":3}"#,
            r#"{"TableName":"t","Key":[]}"#,
            r#"{"TableName":"t","Key":{"a":[]}}"#,
            r#"{"TableName":"t","Key":{"a":{"S":1}}}"#,
            r#"{"TableName":"t","ExclusiveStartKey":7}"#,
            r#"{"TableName":"t","ConsistentRead":"yes"}"#,
            r#"{"TableName":"t","ExpressionAttributeNames":[["a","b"]]}"#,
        ];
        for &operation in Operation::ALL.iter().filter(|op| **op != Operation::SearchVectors) {
            for body in bodies {
                let Err(error) = Request::parse(operation, body) else { continue };
                let message = error.message.clone();
                assert!(!leaks_rust_names(&message), "{operation} {body}: {message}");
            }
        }
        let error = Request::parse(Operation::PutItem, "[]").err().expect("refused");
        assert_eq!(error.message, "Start of list found where not expected");
        let error = Request::parse(Operation::Query, r#"{"Limit":9223372036854775808}"#).err().expect("refused");
        assert_eq!(error.message, "NUMBER_VALUE cannot be converted to Integer");
        // Limit, Segment and TotalSegments are 32-bit Integers on the wire.
        for body in [r#"{"Limit":2147483648}"#, r#"{"Segment":2147483648,"TotalSegments":1}"#] {
            let error = Request::parse(Operation::Scan, body).err().expect("refused");
            assert_eq!(
                (error.kind, error.message.as_str()),
                (ErrorKind::Serialization, "NUMBER_VALUE cannot be converted to Integer"),
                "{body}"
            );
        }
        let at_most = Request::parse(Operation::Scan, r#"{"TableName":"things","Limit":2147483647}"#);
        assert!(at_most.is_ok(), "2^31-1 is an Integer");
    }

    #[test]
    fn a_table_arn_names_its_table_where_the_api_takes_one() {
        use crate::{Engine, FixedClock};
        let mut engine = Engine::new(std::sync::Arc::new(FixedClock::at(0)));
        let create = r#"{"TableName":"things","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}]}"#;
        engine.execute("CreateTable", create).expect("table");
        assert_eq!(OWN_TABLE_ARN_PREFIX, format!("arn:aws:dynamodb:{}:{}:table/", crate::REGION, crate::ACCOUNT_ID));
        let arn = format!("{OWN_TABLE_ARN_PREFIX}things");
        engine
            .execute("PutItem", &format!(r#"{{"TableName":"{arn}","Item":{{"id":{{"S":"a"}}}}}}"#))
            .expect("put by ARN");
        let got =
            engine.execute("GetItem", &format!(r#"{{"TableName":"{arn}","Key":{{"id":{{"S":"a"}}}}}}"#)).expect("get");
        assert!(got.contains(r#""id":{"S":"a"}"#), "{got}");
        let described = engine.execute("DescribeTable", &format!(r#"{{"TableName":"{arn}"}}"#)).expect("describe");
        assert!(described.contains(r#""TableName":"things""#));
        let transact =
            format!(r#"{{"TransactItems":[{{"Put":{{"TableName":"{arn}","Item":{{"id":{{"S":"b"}}}}}}}}]}}"#);
        engine.execute("TransactWriteItems", &transact).expect("transaction by ARN");
        let elsewhere = "arn:aws:dynamodb:eu-west-1:123456789012:table/things";
        let refused =
            engine.execute("GetItem", &format!(r#"{{"TableName":"{elsewhere}","Key":{{"id":{{"S":"a"}}}}}}"#));
        assert!(refused.is_err(), "another account's table is not this one");
    }

    #[test]
    fn more_than_2_mb_of_substitutions_is_refused_while_parsing() {
        let values: serde_json::Map<String, serde_json::Value> =
            (0..30_000).map(|n| (format!(":v{n}"), serde_json::json!({"S": "x".repeat(64)}))).collect();
        let body = serde_json::json!({"TableName": "things", "Item": {"k": {"S": "1"}}, "ConditionExpression": "attribute_not_exists(k)",
            "ExpressionAttributeValues": values});
        let error = Request::parse(Operation::PutItem, &body.to_string()).err().expect("refused");
        assert!(error.message.contains("maximum allowed size of 2097152 bytes"), "{}", error.message);
        let small: serde_json::Map<String, serde_json::Value> =
            (0..3_000).map(|n| (format!(":v{n}"), serde_json::json!({"S": "x".repeat(64)}))).collect();
        let body = serde_json::json!({"TableName": "things", "Item": {"k": {"S": "1"}}, "ConditionExpression": "attribute_not_exists(k)",
            "ExpressionAttributeValues": small});
        let error = Request::parse(Operation::PutItem, &body.to_string()).err().expect("unused values");
        assert!(
            error
                .message
                .starts_with("1 validation error detected: Value provided in ExpressionAttributeValues unused"),
            "under the limit, the operation's own checks follow (PutItem wraps them): {}",
            error.message
        );
    }
}
