//! The workbooks shipped in `examples/`, built in so the playground offers them offline.

/// `(file name, workbook JSON)` for every shipped example.
pub const WORKBOOKS: [(&str, &str); 4] = [
    ("orders-service.workbook.json", include_str!("../../../../examples/orders-service.workbook.json")),
    ("task-board.workbook.json", include_str!("../../../../examples/task-board.workbook.json")),
    ("hot-counter.workbook.json", include_str!("../../../../examples/hot-counter.workbook.json")),
    ("hot-counter-sharded.workbook.json", include_str!("../../../../examples/hot-counter-sharded.workbook.json")),
];

#[cfg(test)]
mod tests {
    #[test]
    fn every_shipped_example_is_built_in_and_parses() {
        let shipped = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"))
            .expect("examples/")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".workbook.json"))
            .count();
        assert_eq!(shipped, super::WORKBOOKS.len());
        for (name, text) in super::WORKBOOKS {
            super::super::Workbook::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
