//! The designs shipped in `examples/` (workbooks and design documents), built in so the
//! playground offers them offline.

/// `(file name, text)` for every shipped example: workbook JSON, or the method's Markdown.
pub const WORKBOOKS: [(&str, &str); 6] = [
    ("orders-service.workbook.json", include_str!("../../../../examples/orders-service.workbook.json")),
    ("task-board.workbook.json", include_str!("../../../../examples/task-board.workbook.json")),
    ("hot-counter.workbook.json", include_str!("../../../../examples/hot-counter.workbook.json")),
    ("hot-counter-sharded.workbook.json", include_str!("../../../../examples/hot-counter-sharded.workbook.json")),
    ("semantic-search.workbook.json", include_str!("../../../../examples/semantic-search.workbook.json")),
    ("orders-service.design.md", include_str!("../../../../examples/orders-service.design.md")),
];

#[cfg(test)]
mod tests {
    #[test]
    fn every_shipped_example_is_built_in_and_parses() {
        let shipped = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"))
            .expect("examples/")
            .flatten()
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.ends_with(".workbook.json") || name.ends_with(".design.md")
            })
            .count();
        assert_eq!(shipped, super::WORKBOOKS.len());
        for (name, text) in super::WORKBOOKS {
            let imported = super::super::import::import(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            imported.workbook.check().unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
