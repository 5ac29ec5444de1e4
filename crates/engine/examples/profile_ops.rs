use dynalab_engine::{Engine, FixedClock};
use serde_json::json;
use std::sync::Arc;
fn main() {
    let op = std::env::args().nth(1).unwrap_or("GetItem".into());
    let mut e = Engine::new(Arc::new(FixedClock::at(0)));
    e.execute("CreateTable", &json!({"TableName":"people","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"BillingMode":"PAY_PER_REQUEST"}).to_string()).unwrap();
    for p in 0..100 { for s in 0..100 {
        e.execute("PutItem", &json!({"TableName":"people","Item":{"pk":{"S":format!("USER#{p:05}")},"sk":{"N":s.to_string()},"name":{"S":"Ada Lovelace"},"count":{"N":"1"},"tags":{"SS":["a","b"]},"pad":{"S":"x".repeat(100)}}}).to_string()).unwrap();
    }}
    let reqs: Vec<String> = (0..1000).map(|i| match op.as_str() {
        "GetItem" => json!({"TableName":"people","Key":{"pk":{"S":format!("USER#{:05}", i % 100)},"sk":{"N":(i % 100).to_string()}}}).to_string(),
        _ => json!({"TableName":"people","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":format!("USER#{:05}", i % 100)}}}).to_string(),
    }).collect();
    let n = if op == "GetItem" { 400000 } else { 6000 };
    let t = std::time::Instant::now();
    for i in 0..n { std::hint::black_box(e.execute(&op, &reqs[i % reqs.len()]).unwrap()); }
    eprintln!("{op}: {:?} per call", t.elapsed() / n as u32);
}
