//! SearchVectors over 100,000 items of 256 dimensions, Dynalab's engine and dynoxide side by side
//! on the same requests (request JSON in, response JSON out). `cargo bench -p dynalab-engine --bench
//! search_vectors`. Dynalab's search is exact (every vector is compared); the figure to watch is
//! the time per search against the table size, and the ratio to the peer.

use criterion::{criterion_group, criterion_main, Criterion};
use dynalab_engine::{Engine, FixedClock};
use serde_json::{json, Value};
use std::hint::black_box;
use std::sync::Arc;

const ITEMS: usize = 100_000;
const DIMENSIONS: usize = 256;
const TENANTS: usize = 100;

/// A deterministic pseudo-random vector: the same numbers for both engines on every run.
fn vector(seed: usize) -> Vec<Value> {
    let mut state = (seed as u64).wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    (0..DIMENSIONS)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let x = ((state >> 33) % 2000) as f64 / 1000.0 - 1.0;
            json!({"N": format!("{x:.3}")})
        })
        .collect()
}

fn create() -> Value {
    json!({"TableName": "docs", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "tenant", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "VectorIndexes": [
            {"IndexName": "all", "VectorAttribute": {"AttributeName": "v"}, "Dimensions": DIMENSIONS, "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "KEYS_ONLY"}},
            {"IndexName": "byTenant", "VectorAttribute": {"AttributeName": "v"}, "Dimensions": DIMENSIONS, "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "KEYS_ONLY"},
             "SearchSchema": [{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"}]}]})
}

fn put(i: usize) -> Value {
    json!({"TableName": "docs", "Item": {"pk": {"S": format!("doc#{i:06}")}, "tenant": {"S": format!("t{}", i % TENANTS)}, "v": {"L": vector(i)}}})
}

fn search(i: usize, tenant: bool) -> Value {
    let mut request = json!({"TableName": "docs", "IndexName": if tenant { "byTenant" } else { "all" },
        "SearchVector": vector(ITEMS + i), "TopK": 10});
    if tenant {
        request["SearchConditionExpression"] = json!("tenant = :t");
        request["ExpressionAttributeValues"] = json!({":t": {"S": format!("t{}", i % TENANTS)}});
    }
    request
}

fn bench(c: &mut Criterion) {
    let mut dynalab = Engine::new(Arc::new(FixedClock::at(0)));
    dynalab.execute_value("CreateTable", &create()).expect("create");
    let dynoxide = dynoxide::Database::memory().expect("dynoxide in memory");
    let dynoxide_ready = dynoxide.create_table(serde_json::from_value(create()).expect("request")).is_ok();
    for i in 0..ITEMS {
        let put = put(i);
        dynalab.execute_value("PutItem", &put).expect("put");
        if dynoxide_ready {
            dynoxide.put_item(serde_json::from_value(put).expect("request")).expect("put");
        }
    }
    for (name, tenant) in [("whole index", false), ("one tenant of 100", true)] {
        let requests: Vec<String> = (0..64).map(|i| search(i, tenant).to_string()).collect();
        let mut group = c.benchmark_group(format!("SearchVectors TopK 10, {ITEMS} x {DIMENSIONS}, {name}"));
        group.sample_size(10);
        let mut n = 0;
        group.bench_function("dynalab", |b| {
            b.iter(|| {
                n += 1;
                black_box(dynalab.execute("SearchVectors", &requests[n % requests.len()]).expect("search"))
            });
        });
        // The peer may hold a new index back while it is "backfilling"; then it has no figure.
        let probe = serde_json::from_str(&requests[0]).expect("request");
        if dynoxide_ready && dynoxide.search_vectors(probe).is_ok() {
            group.bench_function("dynoxide", |b| {
                b.iter(|| {
                    n += 1;
                    let request = serde_json::from_str(&requests[n % requests.len()]).expect("request");
                    let response = dynoxide.search_vectors(request).expect("search");
                    black_box(serde_json::to_string(&response).expect("json"))
                });
            });
        } else {
            println!("dynoxide: no search on a freshly created vector index");
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
