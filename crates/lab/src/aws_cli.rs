//! A pasted `aws dynamodb <operation> --flag value ...` command, turned into the operation name and
//! request JSON the engine takes. Values are JSON (`--key '{"id":{"S":"1"}}'`) or the CLI's
//! shorthand (`--key-schema AttributeName=id,KeyType=HASH`, `--key id={S=1}`). `file://` cannot be
//! read in a browser and is refused with a message saying so; the CLI's own paging flags
//! (`--max-items`, `--starting-token`) are refused too, since one request shows one page here.

use dynalab_engine::Operation;
use serde_json::{Map, Value};

/// An operation and its request, ready for `Engine::execute`.
#[derive(Debug, Clone, PartialEq)]
pub struct Translated {
    pub operation: String,
    pub request: Value,
}

/// Flags of the CLI itself that say nothing about the request.
const GLOBAL_WITH_VALUE: [&str; 7] =
    ["--endpoint-url", "--region", "--profile", "--output", "--query", "--color", "--cli-read-timeout"];
const GLOBAL_SWITCHES: [&str; 5] =
    ["--no-cli-pager", "--debug", "--no-verify-ssl", "--no-paginate", "--no-sign-request"];

/// Members that are numbers, wherever they appear (flags or shorthand keys).
const NUMBER_MEMBERS: [&str; 6] =
    ["Limit", "Segment", "TotalSegments", "ReadCapacityUnits", "WriteCapacityUnits", "PageSize"];
/// Members that are booleans.
const BOOLEAN_MEMBERS: [&str; 4] = ["ConsistentRead", "ScanIndexForward", "DeletionProtectionEnabled", "StreamEnabled"];
/// Flags whose value is a list of plain strings, given as several words.
const STRING_LISTS: [&str; 2] = ["AttributesToGet", "NonKeyAttributes"];
/// Flags whose value is a structure, which shorthand may give (`--key id={S=1}`).
const STRUCTURES: [&str; 9] = [
    "Key",
    "Item",
    "ExclusiveStartKey",
    "ExpressionAttributeNames",
    "ExpressionAttributeValues",
    "ProvisionedThroughput",
    "StreamSpecification",
    "SSESpecification",
    "OnDemandThroughput",
];
/// Flags whose value is a list of structures, given as several shorthand words.
const STRUCTURE_LISTS: [&str; 6] = [
    "AttributeDefinitions",
    "KeySchema",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "GlobalSecondaryIndexUpdates",
    "Tags",
];

/// Translates one pasted command.
pub fn translate(command: &str) -> Result<Translated, String> {
    let words = split_words(command)?;
    let mut words = words.into_iter().peekable();
    if words.peek().map(String::as_str) == Some("aws") {
        words.next();
    }
    let mut request = Map::new();
    let mut operation = None;
    while let Some(word) = words.next() {
        if GLOBAL_SWITCHES.contains(&word.as_str()) {
            continue;
        }
        if GLOBAL_WITH_VALUE.contains(&word.as_str()) {
            words.next();
            continue;
        }
        if operation.is_none() {
            if !Operation::ALL.iter().any(|op| op.api().cli_service() == word) {
                return Err(format!("Expected `aws dynamodb <operation> ...`, found `{word}`"));
            }
            let name = words.next().ok_or_else(|| format!("Missing the operation after `aws {word}`"))?;
            let op = Operation::from_cli(&word, &name).ok_or_else(|| {
                let known: Vec<String> = Operation::ALL
                    .iter()
                    .filter(|op| op.api().cli_service() == word && *op != &Operation::DescribeEndpoints)
                    .map(|op| op.cli_name())
                    .collect();
                format!("`{name}` is not an operation Dynalab runs; `aws {word}` runs: {}", known.join(", "))
            })?;
            operation = Some(op.name().to_string());
            continue;
        }
        let Some(flag) = word.strip_prefix("--") else {
            return Err(format!("Unexpected `{word}`: every parameter is a `--flag`"));
        };
        match flag {
            "max-items" | "starting-token" => {
                return Err(format!(
                    "--{flag} is the CLI's own paging: here one request shows one page; use --limit and the next-page button"
                ))
            }
            "cli-input-json" => {
                let text = words.next().ok_or("--cli-input-json needs a JSON value")?;
                let Value::Object(input) = parse_json("--cli-input-json", &text)? else {
                    return Err("--cli-input-json must be a JSON object".into());
                };
                request.extend(input);
                continue;
            }
            _ => {}
        }
        if let Some(positive) = flag.strip_prefix("no-") {
            let member = member_name(positive);
            if BOOLEAN_MEMBERS.contains(&member.as_str()) {
                request.insert(member, Value::Bool(false));
                continue;
            }
        }
        let member = if flag == "page-size" { "Limit".to_string() } else { member_name(flag) };
        if BOOLEAN_MEMBERS.contains(&member.as_str()) {
            request.insert(member, Value::Bool(true));
            continue;
        }
        let mut values = Vec::new();
        while words.peek().is_some_and(|w| !w.starts_with("--")) {
            values.push(words.next().unwrap_or_default());
        }
        let value = member_value(flag, &member, values)?;
        request.insert(member, value);
    }
    let operation = operation.ok_or("Missing `aws dynamodb <operation>`")?;
    Ok(Translated { operation, request: Value::Object(request) })
}

/// `return-values-on-condition-check-failure` → `ReturnValuesOnConditionCheckFailure`.
fn member_name(flag: &str) -> String {
    match flag {
        "sse-specification" => "SSESpecification".into(),
        _ => flag
            .split('-')
            .map(|part| {
                let mut chars = part.chars();
                chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
            })
            .collect(),
    }
}

fn member_value(flag: &str, member: &str, values: Vec<String>) -> Result<Value, String> {
    let Some(first) = values.first() else { return Err(format!("--{flag} needs a value")) };
    if values.iter().any(|v| v.starts_with("file://") || v.starts_with("fileb://")) {
        return Err(format!("--{flag}: file:// cannot be read in the browser; paste the JSON itself"));
    }
    if first.starts_with('{') || first.starts_with('[') {
        if values.len() > 1 {
            return Err(format!("--{flag}: one JSON value expected, found {} words", values.len()));
        }
        return parse_json(&format!("--{flag}"), first);
    }
    if STRING_LISTS.contains(&member) {
        return Ok(Value::Array(values.into_iter().map(Value::String).collect()));
    }
    if STRUCTURE_LISTS.contains(&member) {
        return values.iter().map(|v| shorthand(flag, v)).collect::<Result<Vec<_>, _>>().map(Value::Array);
    }
    if values.len() > 1 {
        return Err(format!("--{flag} takes one value, found {}: {}", values.len(), values.join(" ")));
    }
    if NUMBER_MEMBERS.contains(&member) {
        return first.parse::<i64>().map(Value::from).map_err(|_| format!("--{flag} needs an integer, not `{first}`"));
    }
    if STRUCTURES.contains(&member) {
        return shorthand(flag, first);
    }
    Ok(Value::String(first.clone()))
}

fn parse_json(flag: &str, text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| format!("{flag}: invalid JSON: {e}"))
}

/// The CLI's shorthand: `A=1,B={C=x,D=[y,z]}`.
fn shorthand(flag: &str, text: &str) -> Result<Value, String> {
    let mut parser = Shorthand { text: text.as_bytes(), at: 0, depth: 0 };
    let value = parser.structure(None)?;
    if parser.at != text.len() {
        return Err(format!("--{flag}: unexpected `{}` in shorthand `{text}`", &text[parser.at..]));
    }
    Ok(value)
}

struct Shorthand<'a> {
    text: &'a [u8],
    at: usize,
    depth: usize,
}

impl Shorthand<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// `key=value,...` up to `close` (or the end).
    fn structure(&mut self, close: Option<u8>) -> Result<Value, String> {
        self.depth += 1;
        if self.depth > 32 {
            return Err("shorthand nested too deeply".into());
        }
        let mut map = Map::new();
        loop {
            let key = self.word(b"=")?;
            if key.is_empty() || self.peek() != Some(b'=') {
                return Err(format!("shorthand: expected `=` after `{key}`"));
            }
            self.at += 1;
            let value = match self.peek() {
                Some(b'{') => {
                    self.at += 1;
                    let inner = self.structure(Some(b'}'))?;
                    self.expect(b'}')?;
                    inner
                }
                Some(b'[') => {
                    self.at += 1;
                    let mut list = Vec::new();
                    loop {
                        match self.peek() {
                            Some(b']') => {
                                self.at += 1;
                                break;
                            }
                            Some(b'{') => {
                                self.at += 1;
                                list.push(self.structure(Some(b'}'))?);
                                self.expect(b'}')?;
                            }
                            Some(_) => {
                                let word = self.word(b",]")?;
                                if word.is_empty() {
                                    return Err("shorthand: unexpected character in a list".into());
                                }
                                list.push(Value::String(word));
                            }
                            None => return Err("shorthand: missing `]`".into()),
                        }
                        if self.peek() == Some(b',') {
                            self.at += 1;
                        }
                    }
                    Value::Array(list)
                }
                _ => typed(&key, self.word(if close.is_some() { b",}" } else { b"," })?),
            };
            map.insert(key, value);
            match self.peek() {
                Some(b',') => self.at += 1,
                _ => break,
            }
        }
        self.depth -= 1;
        if close.is_some_and(|c| self.peek() != Some(c)) {
            return Err("shorthand: missing `}`".into());
        }
        Ok(Value::Object(map))
    }

    fn word(&mut self, stops: &[u8]) -> Result<String, String> {
        let start = self.at;
        while self.peek().is_some_and(|c| !stops.contains(&c) && c != b'{' && c != b'}' && c != b'[' && c != b']') {
            self.at += 1;
        }
        String::from_utf8(self.text[start..self.at].to_vec()).map_err(|_| "shorthand: invalid UTF-8".to_string())
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("shorthand: expected `{}`", c as char))
        }
    }
}

/// A shorthand scalar: numbers and booleans where DynamoDB's shape says so, strings elsewhere
/// (so `{N=5}` keeps `"5"` as DynamoDB JSON wants).
fn typed(key: &str, word: String) -> Value {
    if NUMBER_MEMBERS.contains(&key) {
        if let Ok(n) = word.parse::<i64>() {
            return Value::from(n);
        }
    }
    if BOOLEAN_MEMBERS.contains(&key) || key == "BOOL" || key == "NULL" {
        match word.as_str() {
            "true" => return Value::Bool(true),
            "false" => return Value::Bool(false),
            _ => {}
        }
    }
    Value::String(word)
}

/// Splits a command line as a POSIX shell would: quotes, backslash escapes, `\`-newline.
fn split_words(command: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                // A line continuation, Unix or Windows.
                Some('\n') | None => {}
                Some('\r') if chars.peek() == Some(&'\n') => {
                    chars.next();
                }
                Some(escaped) => word.get_or_insert_with(String::new).push(escaped),
            },
            '\'' => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => text.push(ch),
                        None => return Err("Unclosed single quote".into()),
                    }
                }
            }
            '"' => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('"' | '\\' | '$' | '`')) => text.push(e),
                            Some('\n') => {}
                            Some(other) => {
                                text.push('\\');
                                text.push(other);
                            }
                            None => return Err("Unclosed double quote".into()),
                        },
                        Some(ch) => text.push(ch),
                        None => return Err("Unclosed double quote".into()),
                    }
                }
            }
            c if c.is_whitespace() => {
                if let Some(done) = word.take() {
                    words.push(done);
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(command: &str) -> (String, Value) {
        let t = translate(command).expect("translates");
        (t.operation, t.request)
    }

    #[test]
    fn a_query_from_the_aws_docs_with_quotes_and_continuations() {
        let command = "aws dynamodb query \\\n    --table-name Music \\\n    --key-condition-expression \"Artist = :name\" \\\n    --expression-attribute-values '{\":name\":{\"S\":\"No One You Know\"}}' \\\n    --no-scan-index-forward --consistent-read --limit 2 --return-consumed-capacity TOTAL --region us-west-2";
        let (op, req) = request(command);
        assert_eq!(op, "Query");
        assert_eq!(
            req,
            json!({"TableName": "Music", "KeyConditionExpression": "Artist = :name",
                "ExpressionAttributeValues": {":name": {"S": "No One You Know"}}, "ScanIndexForward": false,
                "ConsistentRead": true, "Limit": 2, "ReturnConsumedCapacity": "TOTAL"})
        );
    }

    #[test]
    fn create_table_in_shorthand() {
        let (op, req) = request(
            "aws dynamodb create-table --table-name Music --attribute-definitions AttributeName=Artist,AttributeType=S AttributeName=SongTitle,AttributeType=S --key-schema AttributeName=Artist,KeyType=HASH AttributeName=SongTitle,KeyType=RANGE --provisioned-throughput ReadCapacityUnits=5,WriteCapacityUnits=5",
        );
        assert_eq!(op, "CreateTable");
        assert_eq!(
            req,
            json!({"TableName": "Music",
                "AttributeDefinitions": [{"AttributeName": "Artist", "AttributeType": "S"}, {"AttributeName": "SongTitle", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"}, {"AttributeName": "SongTitle", "KeyType": "RANGE"}],
                "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}})
        );
    }

    #[test]
    fn nested_shorthand_keys_and_gsi_definitions() {
        let (_, req) = request("aws dynamodb get-item --table-name t --key id={S=abc},n={N=5}");
        assert_eq!(req["Key"], json!({"id": {"S": "abc"}, "n": {"N": "5"}}));
        let (_, req) = request(
            "aws dynamodb create-table --table-name t --global-secondary-indexes 'IndexName=byS,KeySchema=[{AttributeName=s,KeyType=HASH}],Projection={ProjectionType=ALL}'",
        );
        assert_eq!(req["GlobalSecondaryIndexes"][0]["IndexName"], "byS");
        assert_eq!(req["GlobalSecondaryIndexes"][0]["Projection"], json!({"ProjectionType": "ALL"}));
        assert_eq!(req["GlobalSecondaryIndexes"][0]["KeySchema"], json!([{"AttributeName": "s", "KeyType": "HASH"}]));
    }

    #[test]
    fn cli_input_json_and_string_lists() {
        let (op, req) = request(
            r#"aws dynamodb batch-get-item --cli-input-json '{"RequestItems":{"t":{"Keys":[{"id":{"S":"1"}}]}}}' --return-consumed-capacity TOTAL"#,
        );
        assert_eq!(op, "BatchGetItem");
        assert_eq!(req["RequestItems"]["t"]["Keys"][0]["id"]["S"], "1");
        let (_, req) =
            request("aws dynamodb get-item --table-name t --key '{\"id\":{\"S\":\"1\"}}' --attributes-to-get a b");
        assert_eq!(req["AttributesToGet"], json!(["a", "b"]));
        let (_, req) = request("aws dynamodb scan --table-name t --page-size 10 --output json --no-cli-pager");
        assert_eq!(req, json!({"TableName": "t", "Limit": 10}));
    }

    #[test]
    fn what_cannot_be_translated_says_why() {
        let cases = [
            ("aws s3 ls", "Expected `aws dynamodb <operation> ...`, found `s3`"),
            ("aws dynamodb list-backups", "`list-backups` is not an operation Dynalab runs"),
            ("aws dynamodb put-item --table-name t --item file://item.json", "file:// cannot be read in the browser"),
            ("aws dynamodb scan --table-name t --max-items 5", "the CLI's own paging"),
            ("aws dynamodb get-item --key '{\"id\":", "Unclosed single quote"),
            ("aws dynamodb get-item --key '{\"id\":'", "--key: invalid JSON"),
            ("aws dynamodb scan --limit x", "--limit needs an integer"),
            ("aws dynamodb scan table", "Unexpected `table`"),
            ("aws", "Missing `aws dynamodb <operation>`"),
        ];
        for (command, message) in cases {
            let error = translate(command).expect_err(command);
            assert!(error.contains(message), "{command}: {error}");
        }
    }

    #[test]
    fn hostile_shorthand_is_refused_not_overflowed() {
        let deep = format!("aws dynamodb get-item --key {}", "a={".repeat(10_000));
        assert!(translate(&deep).is_err());
    }
}
