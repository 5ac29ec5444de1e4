//! `dynalab mcp` as an agent's MCP client drives it: one process, JSON-RPC messages line by line on
//! its standard input, answers read from its standard output.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Client {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Client {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dynalab"))
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("dynalab mcp starts");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Self { child, input, output, next_id: 0 }
    }

    fn send_line(&mut self, line: &str) {
        self.input.write_all(line.as_bytes()).expect("write");
        self.input.write_all(b"\n").expect("write");
        self.input.flush().expect("flush");
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.output.read_line(&mut line).expect("read");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not one JSON-RPC message per line ({e}): {line}"))
    }

    fn request(&mut self, method: &str, params: &Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send_line(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        let answer = self.read();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// A tool's result (`isError` as given).
    fn tool(&mut self, name: &str, arguments: &Value) -> Value {
        let answer = self.request("tools/call", &json!({"name": name, "arguments": arguments}));
        let result = answer["result"].clone();
        assert!(result["content"][0]["text"].is_string(), "{answer}");
        result
    }
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name).to_string_lossy().into_owned()
}

#[test]
fn an_agent_session_over_stdio() {
    let mut client = Client::start();
    let init = client.request(
        "initialize",
        &json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test-agent", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["result"]["serverInfo"]["name"], "dynalab");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    client.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    let tools = client.request("tools/list", &json!({}));
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "check_design",
            "compare_designs",
            "export_design",
            "run_operation",
            "explain_capacity",
            "load_items",
            "list_tables",
            "describe_table"
        ]
    );
    for tool in tools["result"]["tools"].as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["description"].as_str().unwrap().len() > 80, "a description an agent can act on: {tool}");
    }

    // Operations on the session's engine, with their capacity arithmetic.
    let created = client.tool("run_operation", &json!({"operation": "CreateTable", "request": {"TableName": "users", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}}));
    assert_eq!(created["isError"], false, "{created}");
    let items: Vec<Value> =
        (0..2000).map(|i| json!({"pk": "USER#1", "sk": format!("ORDER#{i:05}"), "note": "x".repeat(100)})).collect();
    let loaded = client.tool("load_items", &json!({"table": "users", "items": items}));
    assert_eq!(loaded["structuredContent"]["writes"]["users"], 2000, "{loaded}");
    let query = client.tool(
        "run_operation",
        &json!({"operation": "Query", "request": {"TableName": "users",
        "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "USER#1"}}, "Limit": 20}}),
    );
    assert_eq!(query["structuredContent"]["response"]["Count"], 20, "{query}");
    assert!(text(&query).contains("× 4 KB → ×½ eventually consistent"), "{}", text(&query));

    // A big answer is shortened, and says so.
    let scan = client.tool("run_operation", &json!({"operation": "Scan", "request": {"TableName": "users"}}));
    assert!(text(&scan).len() <= 61_000, "bounded: {} characters", text(&scan).len());
    assert_eq!(scan["structuredContent"]["response"]["Count"], 2000);
    assert!(
        scan["structuredContent"]["shortened"].as_str().unwrap().contains("of 2000 shown"),
        "{}",
        scan["structuredContent"]["shortened"]
    );

    // DynamoDB's own errors are tool errors the agent reads.
    let failed = client.tool("run_operation", &json!({"operation": "PutItem", "request": {"TableName": "users",
        "Item": {"pk": {"S": "USER#1"}, "sk": {"S": "ORDER#00001"}}, "ConditionExpression": "attribute_not_exists(pk)"}}));
    assert_eq!(failed["isError"], true);
    assert!(
        text(&failed).starts_with("ConditionalCheckFailedException: The conditional request failed"),
        "{}",
        text(&failed)
    );

    // Explaining changes nothing.
    let explained = client.tool(
        "explain_capacity",
        &json!({"operation": "DeleteItem", "request": {"TableName": "users",
        "Key": {"pk": {"S": "USER#1"}, "sk": {"S": "ORDER#00001"}}}}),
    );
    assert_eq!(explained["structuredContent"]["units"], 1.0, "{explained}");
    assert!(text(&explained).contains("nothing was changed"));
    let listed = client.tool("list_tables", &json!({}));
    assert_eq!(listed["structuredContent"]["tables"][0]["totals"]["items"], 2000, "{listed}");
    let described = client.tool("describe_table", &json!({"table": "users"}));
    assert_eq!(described["structuredContent"]["table"]["ItemCount"], 2000, "{described}");
    let example_loaded = client.tool("load_items", &json!({"example": "orders"}));
    assert_eq!(example_loaded["isError"], false, "{example_loaded}");

    // All or nothing: a bad item in the middle leaves the table as it was.
    let bad =
        client.tool("load_items", &json!({"table": "users", "items": [{"pk": "USER#2", "sk": "A"}, {"pk": "USER#2"}]}));
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(text(&bad).contains("write 2 of 2"), "{}", text(&bad));
    let still = client.tool("run_operation", &json!({"operation": "GetItem", "request": {"TableName": "users", "Key": {"pk": {"S": "USER#2"}, "sk": {"S": "A"}}}}));
    assert!(still["structuredContent"]["response"].get("Item").is_none(), "{still}");

    // The proof: a design that passes, one that fails with the reason, and the two compared.
    let passing = client.tool("check_design", &json!({"path": example("orders-service.workbook.json")}));
    assert_eq!(passing["isError"], false);
    assert_eq!(passing["structuredContent"]["verdict"], "pass", "{}", text(&passing));
    assert!(text(&passing).contains("# "), "the design note");
    let design: Value =
        serde_json::from_str(&std::fs::read_to_string(example("hot-counter.workbook.json")).unwrap()).unwrap();
    let failing = client.tool("check_design", &json!({"design": design}));
    assert_eq!(failing["structuredContent"]["verdict"], "fail", "{failing}");
    let failed_pattern = failing["structuredContent"]["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["verdict"] == "fail")
        .expect("a failing pattern");
    assert!(!failed_pattern["reasons"][0].as_str().unwrap().is_empty());
    // The modelling method's Markdown, as a file and as text an agent wrote.
    let document = client.tool("check_design", &json!({"path": example("orders-service.design.md")}));
    assert_eq!(document["structuredContent"]["verdict"], "pass", "{}", text(&document));
    let written = std::fs::read_to_string(example("orders-service.design.md")).unwrap().replace("| 300 |", "| 30000 |");
    let hot = client.tool("check_design", &json!({"design": written}));
    assert_eq!(
        hot["structuredContent"]["verdict"],
        "fail",
        "30,000 reads a second of one user's orders: {}",
        text(&hot)
    );
    // Documents nobody here wrote the dialect for: the AWS MCP server's own Markdown, and a
    // Terraform file, as an agent would pass them.
    let corpus = |name: &str| {
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/designs").join(name))
            .unwrap()
    };
    let agents = client.tool("check_design", &json!({"design": corpus("note-library-loans.mcp.md")}));
    assert_eq!(agents["structuredContent"]["verdict"], "pass", "{}", text(&agents));
    assert!(
        agents["structuredContent"]["notes"]
            .as_array()
            .is_some_and(|n| n.iter().any(|n| n.as_str().is_some_and(|n| n.contains("a cost table")))),
        "what reading said is carried: {agents}"
    );
    let terraform = client.tool("check_design", &json!({"design": corpus("terraform-sessions.tf")}));
    assert_eq!(terraform["isError"], false, "{}", text(&terraform));
    assert!(text(&terraform).contains("sessions-staging"), "{}", text(&terraform));
    // Larger than an answer carries (the access code and its fixture): listed by size, then
    // written whole into a folder.
    let listed = client.tool("export_design", &json!({"path": example("orders-service.design.md")}));
    assert_eq!(listed["isError"], false, "{listed}");
    let names = |answer: &Value| -> Vec<String> {
        answer["structuredContent"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&listed).len(), 15, "{listed}");
    assert!(listed["structuredContent"]["files"][0]["bytes"].as_u64().unwrap() > 0);
    let out = std::env::temp_dir().join(format!("dynalab-mcp-export-{}", std::process::id()));
    let exported = client
        .tool("export_design", &json!({"path": example("orders-service.design.md"), "out": out.to_string_lossy()}));
    assert_eq!(exported["isError"], false, "{exported}");
    assert_eq!(names(&exported), names(&listed));
    assert!(out.join("typescript/access.ts").exists() && out.join("python/test_access.py").exists());
    let template = std::fs::read_to_string(out.join("cloudformation.yaml")).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let again = client.tool("check_design", &json!({"design": template}));
    assert_eq!(again["isError"], false, "the exported template checks: {}", text(&again));
    let compared = client.tool("compare_designs", &json!({"path_a": example("hot-counter.workbook.json"), "path_b": example("hot-counter-sharded.workbook.json")}));
    assert_eq!(compared["structuredContent"]["a"]["verdict"], "fail");
    assert_eq!(compared["structuredContent"]["b"]["verdict"], "pass", "{}", text(&compared));
    let invalid = client.tool(
        "check_design",
        &json!({"design": "{\"format\": \"dynalab-workbook/1\", \"name\": \"x\", \"tables\": [], \"patterns\": []}"}),
    );
    assert_eq!(invalid["isError"], true);
    assert!(text(&invalid).contains("nothing ran"), "{}", text(&invalid));

    // Malformed calls get clear errors, and the session goes on.
    let wrong_operation = client.tool("run_operation", &json!({"operation": "DropTable"}));
    assert_eq!(wrong_operation["isError"], true);
    assert!(text(&wrong_operation).contains("must be one of"), "{}", text(&wrong_operation));
    let no_design = client.tool("check_design", &json!({}));
    assert_eq!(no_design["isError"], true);
    let unknown = client.request("tools/call", &json!({"name": "format_disk", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], -32602);
    client.send_line("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
    assert_eq!(client.read()["error"]["code"], -32700);
    let pong = client.request("ping", &json!({}));
    assert_eq!(pong["result"], json!({}));

    drop(client.input);
    let status = client.child.wait().expect("exits");
    assert!(status.success(), "ends when its input ends: {status}");
}
