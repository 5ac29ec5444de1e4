//! `dynalab mcp`: a Model Context Protocol server on standard input and output, for coding agents
//! that design DynamoDB tables. It speaks JSON-RPC 2.0, one message per line (the protocol's stdio
//! transport), answers `initialize`, `ping`, `tools/list` and `tools/call`, and keeps one engine
//! for the session. Nothing but protocol messages is written to standard output; a message it
//! cannot read gets a JSON-RPC error, never a crash.

mod tools;

use serde_json::{json, Value};
use std::io::{BufRead, Write};

/// The protocol revision this server implements; the latest one as of 2026-12 (2025-11-25).
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// Earlier revisions whose tool calls are the same; a client asking for one gets it.
const ALSO_SPOKEN: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];
/// The longest message read; a longer line is answered with a parse error and skipped.
const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// Serves until standard input ends.
pub fn run() -> std::process::ExitCode {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut session = tools::Session::new();
    loop {
        let line = match read_line(&mut input) {
            Ok(None) => return std::process::ExitCode::SUCCESS,
            Ok(Some(line)) => line,
            Err(too_long) => {
                let answer = error_answer(&Value::Null, PARSE_ERROR, &too_long);
                if send(&stdout, &answer).is_err() {
                    return std::process::ExitCode::FAILURE;
                }
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        if let Some(answer) = answer(&mut session, &line) {
            if send(&stdout, &answer).is_err() {
                return std::process::ExitCode::FAILURE;
            }
        }
    }
}

/// One line of input, without its newline; `None` at the end. A line past the limit is read to
/// its end and refused.
fn read_line(input: &mut impl BufRead) -> Result<Option<String>, String> {
    let mut bytes = Vec::new();
    let mut limited = std::io::Read::take(&mut *input, MAX_MESSAGE_BYTES as u64 + 1);
    let read = limited.read_until(b'\n', &mut bytes).map_err(|e| format!("Parse error: {e}"))?;
    if read == 0 {
        return Ok(None);
    }
    if bytes.len() > MAX_MESSAGE_BYTES && !bytes.ends_with(b"\n") {
        skip_line(input).map_err(|e| format!("Parse error: {e}"))?;
        return Err(format!("Parse error: a message is limited to {} MiB", MAX_MESSAGE_BYTES >> 20));
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Reads past the rest of a line without keeping it (a hostile line may be any length).
fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        if let Some(end) = buffer.iter().position(|&b| b == b'\n') {
            input.consume(end + 1);
            return Ok(());
        }
        let all = buffer.len();
        input.consume(all);
    }
}

fn send(stdout: &std::io::Stdout, message: &Value) -> std::io::Result<()> {
    let mut out = stdout.lock();
    serde_json::to_writer(&mut out, message)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The answer to one message: `None` for a notification (which is never answered).
pub fn answer(session: &mut tools::Session, line: &str) -> Option<Value> {
    let message: Value = match serde_json::from_str(line) {
        Ok(message) => message,
        Err(e) => return Some(error_answer(&Value::Null, PARSE_ERROR, &format!("Parse error: {e}"))),
    };
    let Some(object) = message.as_object() else {
        return Some(error_answer(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request: expected one JSON-RPC 2.0 object (batches are not part of the protocol)",
        ));
    };
    let id = object.get("id").cloned();
    let Some(method) = object.get("method").and_then(Value::as_str) else {
        // A response to a request of ours (we send none) or something else: nothing to answer.
        return id
            .filter(|_| !object.contains_key("result") && !object.contains_key("error"))
            .map(|id| error_answer(&id, INVALID_REQUEST, "Invalid Request: no method"));
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return id.map(|id| error_answer(&id, INVALID_REQUEST, "Invalid Request: \"jsonrpc\" must be \"2.0\""));
    }
    let id = id?; // notifications (initialized, cancelled) need no answer
    let params = object.get("params").cloned().unwrap_or_else(|| json!({}));
    let outcome = match method {
        "initialize" => Ok(initialize(&params)),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": tools::list()})),
        "tools/call" => call(session, &params),
        other => Err((METHOD_NOT_FOUND, format!("Method not found: {other}"))),
    };
    Some(match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => error_answer(&id, code, &message),
    })
}

fn error_answer(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or(PROTOCOL_VERSION);
    let version = if asked == PROTOCOL_VERSION || ALSO_SPOKEN.contains(&asked) { asked } else { PROTOCOL_VERSION };
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "dynalab", "title": "Dynalab", "version": env!("CARGO_PKG_VERSION")},
        "instructions": tools::INSTRUCTIONS,
    })
}

fn call(session: &mut tools::Session, params: &Value) -> Result<Value, (i64, String)> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err((INVALID_PARAMS, "Invalid params: tools/call needs the tool's \"name\"".into()));
    };
    let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
    if !arguments.is_object() {
        return Err((INVALID_PARAMS, "Invalid params: \"arguments\" must be an object".into()));
    }
    session.call(name, &arguments).ok_or_else(|| (INVALID_PARAMS, format!("Unknown tool: {name}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(session: &mut tools::Session, message: &Value) -> Value {
        answer(session, &message.to_string()).expect("an answer")
    }

    #[test]
    fn negotiates_the_version_and_lists_its_tools() {
        let mut session = tools::Session::new();
        let init = ask(
            &mut session,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
        let newer = ask(
            &mut session,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2099-01-01"}}),
        );
        assert_eq!(newer["result"]["protocolVersion"], PROTOCOL_VERSION);
        assert!(answer(&mut session, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_none());
        let listed = ask(&mut session, &json!({"jsonrpc": "2.0", "id": "x", "method": "tools/list"}));
        assert_eq!(listed["id"], "x");
        let names: Vec<&str> =
            listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert!(names.contains(&"run_operation") && names.contains(&"check_design"), "{names:?}");
    }

    #[test]
    fn malformed_messages_get_json_rpc_errors() {
        let mut session = tools::Session::new();
        assert_eq!(answer(&mut session, "{not json").unwrap()["error"]["code"], PARSE_ERROR);
        assert_eq!(answer(&mut session, "[]").unwrap()["error"]["code"], INVALID_REQUEST);
        assert_eq!(
            ask(&mut session, &json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list"}))["error"]["code"],
            METHOD_NOT_FOUND
        );
        assert_eq!(
            ask(&mut session, &json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}))["error"]["code"],
            INVALID_REQUEST
        );
        let unknown = ask(
            &mut session,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "drop_everything"}}),
        );
        assert_eq!(unknown["error"]["code"], INVALID_PARAMS);
        let bad = ask(
            &mut session,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "run_operation", "arguments": 3}}),
        );
        assert_eq!(bad["error"]["code"], INVALID_PARAMS);
    }

    #[test]
    fn a_line_past_the_limit_is_refused_and_the_next_one_read() {
        let mut text = vec![b'x'; MAX_MESSAGE_BYTES + 10];
        text.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        let mut input = std::io::Cursor::new(text);
        assert!(read_line(&mut input).is_err());
        assert!(read_line(&mut input).unwrap().unwrap().contains("ping"));
        assert_eq!(read_line(&mut input).unwrap(), None);
    }
}
