//! Fuzz targets, one function each, taking any bytes: nothing they call may panic, hang or break
//! a limit. `cargo test -p dynalab-fuzz` runs each on its corpus (`fuzz/corpus/TARGET/`, plus the
//! repository's design files for [`import`]) and then on mutations of it for a bounded time
//! (`FUZZ_SECONDS`, 5 by default, per target); `fuzz/libfuzzer` runs the same functions under
//! cargo-fuzz with coverage feedback, for as long as one likes.
//!
//! They live here, above every crate, because they exercise the engine, the importers and the
//! server together; the engine's own folder holds only what depends on nothing above it.

#![forbid(unsafe_code)]

mod targets;

pub use targets::{decode, execute, expression, import, partiql};

/// Every target by name, for the bounded run.
pub const TARGETS: [(&str, fn(&[u8])); 5] =
    [("decode", decode), ("execute", execute), ("expression", expression), ("import", import), ("partiql", partiql)];
