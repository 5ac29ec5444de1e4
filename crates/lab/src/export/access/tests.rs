//! The access code written for the shipped examples.

use crate::export::export;
use crate::workbook::Workbook;

fn example(name: &str) -> Workbook {
    let path = format!("{}/../../examples/{name}.workbook.json", env!("CARGO_MANIFEST_DIR"));
    Workbook::parse(&std::fs::read_to_string(path).expect("example")).expect("workbook")
}

fn file<'a>(files: &'a [(String, String)], name: &str) -> &'a str {
    files.iter().find(|(n, _)| n == name).map_or_else(|| panic!("no {name}"), |(_, text)| text.as_str())
}

#[test]
fn each_pattern_is_a_function_taking_its_key_inputs() {
    let exported = export(&example("orders-service"));
    let ts = file(&exported.files, "typescript/access.ts");
    assert!(ts.contains("export async function getUsersProfile(\n  db: DynamoDBDocumentClient,\n  userId: string,\n): Promise<OrdersItem | undefined> {"), "{ts}");
    assert!(ts.contains("Key: { pk: `USER#${userId}`, sk: \"PROFILE\" }"), "{ts}");
    assert!(ts.contains("startKey?: PageKey"), "{ts}");
    let py = file(&exported.files, "python/access.py");
    assert!(py.contains("def get_users_profile(dynamodb, user_id: str) -> Optional[OrdersItem]:"), "{py}");
    assert!(py.contains("\"Key\": {\"pk\": f\"USER#{user_id}\", \"sk\": \"PROFILE\"}"), "{py}");
    let test = file(&exported.files, "python/test_access.py");
    assert!(test.contains("access.get_users_profile(dynamodb, \"ada\")"), "{test}");
    assert!(file(&exported.files, "fixture.json").contains("\"now\": 1767225600000"));
}

#[test]
fn a_design_without_patterns_exports_no_access_code_and_says_so() {
    let mut workbook = example("orders-service");
    workbook.patterns.clear();
    let exported = export(&workbook);
    assert!(!exported.files.iter().any(|(n, _)| n.starts_with("typescript/") || n.starts_with("python/")));
    assert!(exported.notes.iter().any(|n| n.contains("no access code")), "{:?}", exported.notes);
}

#[test]
fn a_fixture_too_large_to_ship_exports_the_infrastructure_and_says_why() {
    let mut workbook = example("orders-service");
    let item = serde_json::json!({"pk": "USER#x", "sk": "PROFILE"});
    let items = vec![item; crate::export::MAX_FIXTURE_ITEMS + 1];
    workbook.fixtures.insert("orders".into(), serde_json::Value::Array(items));
    let exported = export(&workbook);
    assert!(!exported.files.iter().any(|(n, _)| n == "fixture.json" || n.starts_with("typescript/")));
    assert!(exported.notes.iter().any(|n| n.contains("50,001 items")), "{:?}", exported.notes);
    assert!(file(&exported.files, "README.md").contains("50,001 items"));
}

#[test]
fn a_test_whose_pattern_writes_has_the_fixture_loaded_again_after_it_at_an_endpoint() {
    let exported = export(&example("orders-service"));
    let ts = file(&exported.files, "typescript/access.test.ts");
    // AP1 reads, AP6 writes (a transaction): at an endpoint, only a test after a write reloads.
    assert!(
        ts.contains(
            "test(\"AP1 Get a user's profile\", async () => {\n  const { db, consumed } = await loaded(false);"
        ),
        "{ts}"
    );
    assert!(
        ts.contains(
            "test(\"AP6 Sign up with a unique email\", async () => {\n  const { db, consumed } = await loaded(true);"
        ),
        "{ts}"
    );
    assert!(ts.contains("process.env.AWS_ENDPOINT_URL_DYNAMODB") && ts.contains("127\\.0\\.0\\.1|localhost"), "{ts}");
    let py = file(&exported.files, "python/test_access.py");
    assert!(py.contains("def test_sign_up_with_unique_email(load):\n    \"\"\"AP6 — Sign up with a unique email\"\"\"\n    dynamodb, consumed = load(writes=True)"), "{py}");
    assert!(py.contains("dynamodb, consumed = load(writes=False)"), "{py}");
    assert!(py.contains("os.environ.get(\"AWS_ENDPOINT_URL_DYNAMODB\")"), "{py}");
}
