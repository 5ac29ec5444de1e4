//! The corpus through `dynalab serve`'s HTTP layer: every step must answer over the wire exactly as
//! the engine answers in process (status class, error type and message, body).

use dynalab_engine::{Engine, FixedClock};
use dynalab_server::AppState;
use dynalab_tests::corpus::{fresh_engine, from_http, load, normalize, run_engine};
use dynalab_tests::http::call;
use std::sync::Arc;

/// A server on a free loopback port, stopped when the returned sender drops.
fn start_server(runtime: &tokio::runtime::Runtime) -> (u16, tokio::sync::watch::Sender<bool>) {
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("address").port();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let state = AppState::new(Engine::new(Arc::new(FixedClock::at(1_764_633_600_000))));
    runtime.spawn(dynalab_server::serve(listener, state, Default::default(), stopped, false));
    (port, stop)
}

#[test]
fn every_corpus_step_answers_over_http_as_in_process() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let mut failures = Vec::new();
    let mut steps = 0;
    for sequence in load() {
        let (port, _stop) = start_server(&runtime);
        let mut engine = fresh_engine();
        for (i, step) in sequence.steps.iter().enumerate() {
            steps += 1;
            let direct = normalize(&run_engine(&mut engine, step), step.unordered);
            let response = call(port, "dynalab", &step.op, &step.request.to_string()).expect("the server answers");
            let over_http = normalize(&from_http(&response), step.unordered);
            let status_ok = (response.status == 200) == direct.get("ok").is_some();
            if over_http != direct || !status_ok {
                failures.push(format!(
                    "{} step {} ({}): HTTP {} {over_http}\n  in process: {direct}",
                    sequence.name,
                    i + 1,
                    step.op,
                    response.status
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} steps differ over HTTP:\n{}", failures.len(), failures.join("\n"));
    assert!(steps > 500, "only {steps} steps");
}
