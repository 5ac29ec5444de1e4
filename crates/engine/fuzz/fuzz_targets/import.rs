//! Any file given to `dynalab check` or opened in the Patterns view: every importer (workbook, MCP
//! data model, the design skill's cost model flat and nested, NoSQL Workbench v1-v3, CloudFormation
//! and SAM in JSON and YAML with parameters, loops and global tables) must answer with a workbook
//! or an error; a small imported workbook must plan, run and render every report, without a panic.
//! Seed it with the real files: `mkdir -p corpus/import && cp ../../../tests/imports/*.json
//! ../../../tests/imports/*.yaml ../../../tests/designs/*.json ../../../tests/designs/*.yaml
//! ../../../examples/*.workbook.json corpus/import/`.
#![no_main]

use dynalab_engine::FixedClock;
use dynalab_lab::workbook::{check::check, compare, import::import, report};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(imported) = import(text) else { return };
    let items: usize = imported.workbook.fixtures.values().filter_map(|v| v.as_array().map(Vec::len)).sum();
    if items <= 200 && imported.workbook.patterns.len() <= 20 {
        if let Ok(checked) = check(&imported.workbook, Arc::new(FixedClock::at(0))) {
            let _ = report::markdown(&checked.result);
            let _ = report::json(&checked.result);
            let _ = report::validation(&checked.plan, &checked.runs);
            let _ = compare::markdown(&checked.result, &checked.result);
        }
    }
});
