//! Any file given to `dynalab check` or opened in the Patterns view: every importer (workbook, MCP
//! data model, cost model, NoSQL Workbench, CloudFormation JSON and YAML) must answer with a
//! workbook or an error, and a small imported workbook must run, without a panic.
//! Seed it with the real files: `mkdir -p corpus/import && cp ../../../tests/imports/*.json
//! ../../../tests/imports/*.yaml ../../../examples/*.workbook.json corpus/import/`.
#![no_main]

use dynalab_engine::FixedClock;
use dynalab_lab::workbook::{check::check, import::import};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(imported) = import(text) else { return };
    let items: usize = imported.workbook.fixtures.values().filter_map(|v| v.as_array().map(Vec::len)).sum();
    if items <= 200 && imported.workbook.patterns.len() <= 20 {
        let _ = check(&imported.workbook, Arc::new(FixedClock::at(0)));
    }
});
