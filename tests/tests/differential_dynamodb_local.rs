//! The corpus, run against the engine and against AWS's DynamoDB Local: every step must answer the
//! same, except the steps tagged with an entry of `known-differences.json` — and those must still
//! differ, so an exception that is no longer needed gets noticed.

use dynalab_tests::corpus::{
    fresh_engine, from_http, known_differences, load, normalize, only_members, run_engine, without_local_noise,
};
use dynalab_tests::dynamodb_local::DynamoDbLocal;
use dynalab_tests::http::call;

#[test]
fn the_engine_answers_as_dynamodb_local_does() {
    let local = DynamoDbLocal::start().unwrap_or_else(|e| panic!("{e}"));
    let known = known_differences();
    let mut failures = Vec::new();
    let mut compared = 0;
    for (n, sequence) in load().iter().enumerate() {
        let mut engine = fresh_engine();
        // DynamoDB Local keeps one database per access key: each sequence starts empty.
        let access_key = format!("corpus{n}");
        for (i, step) in sequence.steps.iter().enumerate() {
            let ours = only_members(
                &without_local_noise(&normalize(&run_engine(&mut engine, step), step.unordered)),
                &step.compare_only,
            );
            let response = call(local.port, &access_key, &step.op, &step.request.to_string())
                .unwrap_or_else(|e| panic!("DynamoDB Local stopped answering: {e}"));
            let theirs = only_members(
                &without_local_noise(&normalize(&from_http(&response), step.unordered)),
                &step.compare_only,
            );
            let at = format!("{} step {} ({})", sequence.name, i + 1, step.op);
            match &step.local_differs {
                None => {
                    compared += 1;
                    if ours != theirs {
                        failures.push(format!("{at}:\n  engine: {ours}\n  Local:  {theirs}"));
                    }
                }
                Some(id) if !known.contains_key(id) => failures.push(format!("{at}: unknown difference id {id}")),
                Some(id) if ours == theirs => {
                    failures.push(format!("{at}: tagged '{id}' but Local now answers the same; drop the tag"));
                }
                Some(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{} differences from DynamoDB Local:\n{}", failures.len(), failures.join("\n"));
    assert!(compared > 100, "only {compared} steps compared");
}
