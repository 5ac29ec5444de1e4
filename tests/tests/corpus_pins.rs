//! Every pinned response in `tests/corpus` holds on the engine.

use dynalab_tests::corpus::{check_pins, fresh_engine, load, run_engine};

#[test]
fn every_pinned_response_holds() {
    let sequences = load();
    assert!(!sequences.is_empty(), "the corpus is empty");
    let mut failures = Vec::new();
    let mut pinned = 0;
    for sequence in &sequences {
        let mut engine = fresh_engine();
        for (i, step) in sequence.steps.iter().enumerate() {
            let outcome = run_engine(&mut engine, step);
            if step.expect.is_some() || step.expect_error.is_some() || !step.absent.is_empty() {
                pinned += 1;
            }
            for problem in check_pins(step, &outcome) {
                failures.push(format!("{} step {} ({}): {problem}", sequence.name, i + 1, step.op));
            }
        }
    }
    assert!(failures.is_empty(), "{} of the corpus's pins failed:\n{}", failures.len(), failures.join("\n"));
    assert!(pinned > 100, "only {pinned} pinned steps");
}
