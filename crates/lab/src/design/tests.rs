//! The design document end to end: the method's example proven, what it writes read back as the
//! same design, and refusals that name the line, table, row and column.

use super::markdown::{read, write};
use crate::workbook::analysis::Verdict;
use crate::workbook::check::check_text;
use crate::workbook::import::{import, Source};
use dynalab_engine::{Clock, FixedClock};
use std::sync::Arc;

const EXAMPLE: &str = include_str!("../../../../examples/orders-service.design.md");
const AS_WRITTEN: &str = include_str!("testdata/method-example-as-written.md");

fn clock() -> Arc<dyn Clock> {
    Arc::new(FixedClock::at(1_700_000_000_000))
}

#[test]
fn the_methods_example_is_proven() {
    let design = check_text(EXAMPLE, clock()).expect("the example checks");
    assert_eq!(design.source, Source::DesignDocument);
    let result = &design.checked.result;
    assert_eq!(result.verdict, Verdict::Pass, "{:#?}", result.patterns);
    let operations: Vec<&str> = result.patterns.iter().map(|p| p.operation.as_str()).collect();
    assert_eq!(operations, ["GetItem", "Query", "Query", "Query", "TransactWriteItems"]);
    let items: Vec<u64> = result.patterns.iter().map(|p| p.items).collect();
    assert_eq!(items[0], 1, "the user is found");
    assert!(items[1] >= 2 && items[2] >= 2 && items[3] >= 2, "collections hold items: {items:?}");
    assert_eq!(result.patterns[3].index.as_deref(), Some("GSI1"));
    assert_eq!(result.patterns[2].read_units, 1.0, "pattern 3 is strong, as its inventory row asks: 2 × 0.5");
    // Newest first, 20 a page: the inventory's Sort/filter became the request's options.
    let (_, second) = design.checked.plan.patterns().nth(1).expect("pattern 2");
    assert_eq!(second[0].request["ScanIndexForward"], false);
    assert_eq!(second[0].request["Limit"], 20);
    assert!(
        design.notes.iter().any(|n| n.contains("index `GSI1`") && n.contains("INCLUDE total, status")),
        "{:?}",
        design.notes
    );
}

#[test]
fn the_methods_text_as_written_runs_and_says_what_it_lacks() {
    let design = check_text(AS_WRITTEN, clock()).expect("the text checks");
    let result = &design.checked.result;
    let verdicts: Vec<(&str, Verdict)> = result.patterns.iter().map(|p| (p.id.as_str(), p.verdict)).collect();
    assert_eq!(
        verdicts,
        [("1", Verdict::Pass), ("2", Verdict::Pass), ("3", Verdict::Pass), ("4", Verdict::Fail), ("5", Verdict::Fail)],
        "1 and 3 from the layout's notes; 4's index has no attribute in the layout; 5 has no call"
    );
    assert!(
        result.patterns[3].reasons[0].contains("give an entity of the layout a `GSI1PK` column"),
        "{:?}",
        result.patterns[3].reasons
    );
    assert!(result.patterns[4].reasons[0].contains("no row in a design note"));
    assert!(
        design.notes.iter().any(|n| n.contains("taken from the layout's notes on User: GetItem")),
        "{:?}",
        design.notes
    );
    assert!(design.notes.iter().any(|n| n.contains("defaults used")), "counts the layout lacks are stated");
}

#[test]
fn what_is_written_reads_back_as_the_same_design() {
    let (design, _) = read(EXAMPLE).expect("reads");
    let written = write(&design);
    let (again, notes) = read(&written).expect("reads back");
    assert_eq!(again, design, "{written}");
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(write(&again), written);
    let first = check_text(EXAMPLE, clock()).expect("original");
    let second = check_text(&written, clock()).expect("written");
    let summary = |r: &crate::workbook::analysis::DesignResult| {
        r.patterns.iter().map(|p| (p.id.clone(), p.verdict, p.items, p.read_units, p.write_units)).collect::<Vec<_>>()
    };
    assert_eq!(summary(&first.checked.result), summary(&second.checked.result));
}

#[test]
fn unread_cells_are_named_with_their_line_and_the_rest_is_read() {
    let inventory = "| # | Pattern | Type | Rate (peak/s) | Consistency |\n|---|---|---|---|---|\n";
    let table = "## Table: lib\n| Entity | PK | SK |\n|---|---|---|\n| User | USER#<id> | PROFILE |\n";
    let note = "| # | Pattern | Operation | Key condition | Index |\n|---|---|---|---|---|\n";
    let cases = [
        (format!("{inventory}| 1 | Get | read | fast | eventual |\n{table}"), "line 3: inventory row \"1 Get\", column \"Rate (peak/s)\": `fast` is not a number of requests per second: 1 request/s assumed (pattern 1 not proven)"),
        (format!("{inventory}| 1 | Get | sometimes | 5 | eventual |\n{table}"), "column \"Type\": `sometimes` is neither read nor write (nor an operation's name): read assumed (pattern 1 not proven)"),
        (format!("{inventory}| 1 | Get | read | 5 | whenever |\n{table}"), "column \"Consistency\": `whenever` is not a consistency"),
        (format!("{table}\n{note}| 1 | Get | Fetch | PK=USER#id | base |\n"), "line 8: design note row \"1 Get\", column \"Operation\": `Fetch` is not an operation"),
        (format!("{table}\n{note}| 1 | Get | Query | PK | base |\n"), "column \"Key condition\": `PK` could not be read: `PK` is not a key condition"),
        ("## Table: lib\n| Entity | PK | SK |\n|---|---|---|\n| User | USER#<id | PROFILE |\n| Book | BOOK#<b> | META |\n".into(), "line 4: entity layout of `lib` row \"User USER#<id\", column \"PK\": `USER#<id`: a `<` without its `>`"),
        ("## Table: lib\n| Entity | PK | SK | Size |\n|---|---|---|---|\n| User | U#<id> | P | huge |\n".into(), "column \"Size\": `huge` is not a size"),
        ("## Table: lib\n| Entity | PK | SK | Items |\n|---|---|---|---|\n| User | U#<id> | P | -3 |\n".into(), "column \"Items\": `-3` is not a number of items"),
        ("## Table: lib\n| Entity | PK | SK |\n|---|---|---|\n| User | | P |\n| Book | B#<b> | META |\n".into(), "column \"PK\": entity `User` has no partition key `PK`"),
        (format!("{table}\n| Index | Partition key | Sort key | Projection |\n|---|---|---|---|\n| GSI1 | GSI1PK | - | SOME |\n"), "line 8: index table row \"GSI1 GSI1PK\", column \"Projection\": `SOME` is not a projection"),
    ];
    for (text, expected) in cases {
        let (design, _) = read(&text).unwrap_or_else(|e| panic!("{expected}: refused: {e}"));
        let said: Vec<String> = design.unread.iter().map(ToString::to_string).collect();
        assert!(said.iter().any(|u| u.contains(expected)), "{said:#?}\nexpected: {expected}");
        assert!(!design.tables.is_empty(), "the rest of the document is read");
    }
    let error = read("# Nothing\n\nJust words.\n| a | b |\n|---|---|\n| 1 | 2 |\n").expect_err("no design");
    assert!(error.starts_with("no design in this text"), "{error}");
}

#[test]
fn a_markdown_file_is_told_from_yaml_and_json() {
    let imported = import(EXAMPLE).expect("imports");
    assert_eq!(imported.source, Source::DesignDocument);
    assert_eq!(imported.workbook.patterns.len(), 5);
    assert!(!super::markdown::looks_like_markdown("Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n"));
    assert!(super::markdown::looks_like_markdown(AS_WRITTEN));
    assert!(
        !super::markdown::looks_like_markdown("# A comment\nresource \"aws_dynamodb_table\" \"t\" {\n}\n"),
        "Terraform"
    );
    assert!(!super::markdown::looks_like_markdown("# serverless\nservice: orders\nprovider:\n  name: aws\n"), "YAML");
}

#[test]
fn hostile_documents_are_refused_or_read_never_panic() {
    let long_condition = format!("## Table: tbl\n| Entity | PK |\n|---|---|\n| A | A#<a> |\n\n| # | Pattern | Operation | Key condition | Index |\n|---|---|---|---|---|\n| 1 | x | Query | PK={} | base |\n", "A#".repeat(5000));
    let (design, _) = read(&long_condition).expect("read, the cell named");
    assert!(design.unread.iter().any(|u| u.problem.contains("at most 4096")), "{:?}", design.unread);
    // Production counts beyond the fixture's budget are scaled down, never made in full.
    let many_items =
        "## Table: tbl\n| Entity | PK | Items |\n|---|---|---|\n| A | A#<a> | 100000 |\n| B | B#<b> | 1000000000000 |\n";
    let (design, _) = read(many_items).expect("reads");
    let converted = design.to_workbook().expect("scaled down");
    let items = converted.workbook.fixtures["tbl"].as_array().map_or(0, Vec::len) as u64;
    assert!(items <= super::fixture::FIXTURE_ITEMS + 2, "{items} items");
    assert_eq!(converted.workbook.scale, 50_000_005.0, "{:?}", converted.notes);
    assert!(converted.notes[0].contains("1,000,000,100,000 items"), "{:?}", converted.notes);
    // A collection kept whole that is larger than a fixture may hold is refused before it is made.
    let one_collection = "## Table: tbl (PK, SK)\n| Entity | PK | SK | Items | Per collection | Size |\n|---|---|---|---|---|---|\n| Order | ORDER#<o> | META | 10 | | |\n| Line | ORDER#<o> | LINE#<n> | | 1000 | 400 KB |\n";
    let (design, _) = read(one_collection).expect("reads");
    assert!(design.to_workbook().expect_err("too large").contains("MB of items, more than the 200 MB"));
    let endless = "## Table: tbl (PK, SK)\n| Entity | PK | SK | Items | Per collection |\n|---|---|---|---|---|\n| Order | ORDER#<o> | META | 10 | |\n| Line | ORDER#<o> | LINE#<n> | | 1000000000000 |\n";
    let (design, _) = read(endless).expect("reads");
    assert!(design.to_workbook().expect_err("too many").contains("more than the"));
    for text in [
        "|",
        "| Entity |\n|",
        "## Table:\n| Entity | PK |\n| x | <",
        "\t\t\n\t",
        "## Table: t (\n| # | Pattern | Operation | Key condition | Index |\n| 1 | p | Query | begins_with( | GSI |",
    ] {
        let _ = read(text).map(|(d, _)| d.to_workbook());
    }
}

/// Hundreds of damaged copies of the example (bytes cut, repeated, swapped for the characters
/// the dialect gives meaning to): each is read, refused or checked, never a panic.
#[test]
fn damaged_documents_never_panic() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below.max(1) as u64) as usize
    };
    let specials = ['|', '<', '>', '#', '\'', '(', ')', ',', ';', '=', '\t', '\n', '%', '*', ' ', 'é'];
    // The example with few items, so each copy is checked quickly.
    let small = EXAMPLE.replace("| 1000 |", "| 20 |").replace("| 200 |", "| 10 |").replace("| 100 |", "| 5 |");
    for _ in 0..800 {
        let mut chars: Vec<char> = small.chars().collect();
        for _ in 0..1 + next(6) {
            let at = next(chars.len());
            match next(3) {
                0 => {
                    let end = (at + next(40)).min(chars.len());
                    chars.drain(at..end);
                }
                1 => chars.insert(at, specials[next(specials.len())]),
                _ => {
                    let end = (at + next(30)).min(chars.len());
                    let copied: Vec<char> = chars[at..end].to_vec();
                    chars.splice(at..at, copied);
                }
            }
        }
        let text: String = chars.into_iter().collect();
        if let Ok((design, _)) = read(&text) {
            if let Ok(converted) = design.to_workbook() {
                let _ = crate::workbook::check::check(&converted.workbook, clock());
            }
            let _ = read(&write(&design));
        }
    }
}

#[test]
fn production_counts_scale_the_fixture_and_a_scan_pays_for_all_of_production() {
    let document = |users: &str| {
        format!(
            "| # | Pattern | Type | Key inputs | Sort/filter | Rate (peak/s) | Consistency |\n|---|---|---|---|---|---|---|\n\
             | 1 | A user | read | userId | - | 10 | eventual |\n| 2 | Every user | read | - | - | 1 | eventual |\n\n\
             ## Table: app (PK, SK)\n| Entity | PK | SK | Items | Size |\n|---|---|---|---|---|\n| User | USER#<userId> | PROFILE | {users} | 1 KB |\n\n\
             | # | Pattern | Operation | Key condition | Index |\n|---|---|---|---|---|\n\
             | 1 | A user | GetItem | PK=USER#<userId>, SK=PROFILE | base |\n| 2 | Every user | Scan | | base |\n"
        )
    };
    let small = check_text(&document("1000"), clock()).expect("checks");
    let large = check_text(&document("10,000,000"), clock()).expect("checks");
    let (small, large_notes, large) = (&small.checked.result, &large.notes, &large.checked.result);
    assert_eq!(small.scale, 1.0, "a thousand users fit the fixture");
    assert_eq!(large.scale, 500.0, "ten million users: 20,000 in the fixture");
    assert!(large_notes.iter().any(|n| n.contains("10,000,000 items") && n.contains("about 1/500")), "{large_notes:?}");
    assert_eq!(large.tables[0].totals.items, 20_000);
    // The GetItem reads one item either way; the Scan reads all of production.
    assert_eq!(small.patterns[0].read_units, large.patterns[0].read_units);
    let per_item =
        |r: &crate::workbook::analysis::DesignResult| r.patterns[1].read_units / r.tables[0].totals.items as f64;
    let (small_scan, large_scan) = (small.patterns[1].read_units, large.patterns[1].read_units);
    assert!(large_scan > small_scan * 9_000.0, "{small_scan} → {large_scan}");
    assert!((per_item(large) / 500.0 - per_item(small)).abs() / per_item(small) < 0.02);
    assert!(
        large.patterns[1].reasons.iter().any(|r| r.contains("production's size (scale ×500)")),
        "{:?}",
        large.patterns[1].reasons
    );
}

const DESIGNER: &str = include_str!("../../../../tests/designs/note-library-loans.designer.md");
const DIALECT: &str = include_str!("../../../../tests/designs/note-library-loans.design.md");
const MCP_NOTE: &str = include_str!("../../../../tests/designs/note-library-loans.mcp.md");

/// Per pattern: operation, index, verdict, items, units — what two equivalent designs must share.
fn outcome(text: &str) -> Vec<(String, String, Option<String>, Verdict, u64, f64, f64)> {
    let checked = check_text(text, clock()).unwrap_or_else(|e| panic!("checks: {:?}", e.problems));
    checked
        .checked
        .result
        .patterns
        .iter()
        .map(|p| (p.id.clone(), p.operation.clone(), p.index.clone(), p.verdict, p.items, p.read_units, p.write_units))
        .collect()
}

#[test]
fn a_designers_note_in_the_methods_tables_is_proven_like_its_dialect_twin() {
    let (design, _) = read(DESIGNER).expect("reads");
    assert!(design.unread.is_empty(), "{:?}", design.unread);
    let note = outcome(DESIGNER);
    let verdicts: Vec<Verdict> = note.iter().map(|o| o.3).collect();
    assert_eq!(verdicts, [Verdict::Pass, Verdict::Pass, Verdict::Pass, Verdict::Pass, Verdict::Pass, Verdict::Fail]);
    assert_eq!(note[4].1, "TransactWriteItems");
    assert_eq!(note[5].1, "Scan", "the Scan runs, and fails as a Scan");
    assert_eq!(note[2].2.as_deref(), Some("GSI1"), "the index keys came from the entity's Notes");
    assert_eq!(note, outcome(DIALECT), "the same calls, items and units as the dialect's");
    let checked = check_text(DESIGNER, clock()).expect("checks");
    let (_, second) = checked.checked.plan.patterns().nth(1).expect("pattern 2");
    assert_eq!(second[0].request["Limit"], 20, "`Limit 20`");
    assert_eq!(second[0].request["ScanIndexForward"], false, "`newest first`");
    let (_, fifth) = checked.checked.plan.patterns().nth(4).expect("pattern 5");
    let actions = fifth[0].request["TransactItems"].as_array().expect("actions");
    assert_eq!(actions.len(), 2);
    assert!(actions[0]["Update"]["UpdateExpression"].as_str().is_some_and(|u| u.starts_with("REMOVE")));
    assert_eq!(actions[0]["Update"]["ConditionExpression"], "attribute_exists(PK)");
    assert!(actions[1]["Update"]["UpdateExpression"].as_str().is_some_and(|u| u.starts_with("ADD copiesAvailable")));
}

#[test]
fn the_aws_mcp_servers_markdown_is_read_as_it_is_written() {
    let (design, notes) = read(MCP_NOTE).expect("reads");
    assert_eq!(design.tables.len(), 1, "`## Table Designs` is a heading, not a table");
    let table = &design.tables[0];
    assert_eq!(table.name, "Library");
    assert_eq!(table.indexes[0].projection, super::Projection::KeysOnly);
    assert_eq!(table.entities.len(), 3, "members, loans and books from the sample items");
    assert!(notes.iter().any(|n| n.contains("a cost table")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("sample items of index `GSI1`")), "{notes:?}");
    let ids: Vec<&str> = design.inventory.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["AP1", "AP2", "AP3", "AP4", "AP5", "AP6"], "the cost table's footnoted ids are not patterns");
    let rates: Vec<Option<f64>> = design.inventory.iter().map(|r| r.peak_rps).collect();
    assert_eq!(rates[0], Some(120.0), "the rate, not the item size");
    let outcome = outcome(MCP_NOTE);
    assert!(outcome.iter().all(|o| o.3 == Verdict::Pass), "{outcome:?}");
    let twin = self::outcome(DIALECT);
    for (mcp, dialect) in outcome.iter().zip(&twin).take(5) {
        assert_eq!((&mcp.1, &mcp.2, mcp.3), (&dialect.1, &dialect.2, dialect.3), "pattern {}", mcp.0);
    }
    assert_eq!(outcome[3].5, 1.0, "AP4's Notes say strongly consistent: 1 RCU");
}

/// Every cell of the designer's note made unreadable in turn: the document is still read, the
/// cell is named with its line (or is free text), and every pattern is still reported.
#[test]
fn each_damaged_cell_is_named_and_the_rest_is_proven() {
    // Few items, so each of the ~50 copies checks quickly.
    let small = DESIGNER
        .replace("| 200 | pattern 1 |", "| 20 | pattern 1 |")
        .replace("| 2000 |", "| 40 |")
        .replace("| 100 |", "| 10 |");
    let lines: Vec<&str> = small.lines().collect();
    for (number, line) in lines.iter().enumerate() {
        if !line.starts_with('|') || line.starts_with("|---") {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').collect();
        for column in 0..cells.len() {
            let mut damaged: Vec<String> = cells.iter().map(|c| (*c).to_string()).collect();
            damaged[column] = " <#?(% ".into();
            let mut text: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
            text[number] = format!("|{}|", damaged.join("|"));
            let text = text.join("\n");
            let (design, _) = read(&text).unwrap_or_else(|e| panic!("line {}: refused: {e}", number + 1));
            for unread in &design.unread {
                assert!(unread.at.starts_with("line ") || unread.at.starts_with("pattern "), "{unread}");
            }
            match check_text(&text, clock()) {
                Ok(checked) => assert!(checked.checked.result.patterns.len() >= 5, "line {}", number + 1),
                Err(not) => panic!("line {} column {column}: nothing was checked: {:?}", number + 1, not.problems),
            }
        }
    }
}

/// What the Design tab exports, edited by hand the way people edit: words for options, columns
/// moved, rates with units. Still the same proof.
#[test]
fn an_exported_note_edited_by_hand_is_still_read() {
    let (design, _) = read(DIALECT).expect("reads");
    let exported = write(&design);
    let edited = exported
        .replace("ScanIndexForward=false, Limit=20", "newest first, Limit 20")
        .replace("| 80 |", "| 80/s |")
        .replace("| 200 | - | strong |", "| ~200 RPS | - | Strongly consistent |")
        .replace("| # | Pattern | Type |", "| # | Pattern | Kind |");
    assert_ne!(edited, exported);
    assert_eq!(outcome(&edited), outcome(DIALECT));
}

/// The modelling skill's own text (kept beside the repository, in shared/reference/seeds): read
/// as it is, with the verdicts of the same example as this repository writes it.
#[test]
fn the_modelling_skills_own_text_is_read_with_the_examples_verdicts() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/reference/seeds/dynamodb-modeling-skill.txt");
    let Ok(seed) = std::fs::read_to_string(path) else {
        eprintln!("{path} is not here: skipped");
        return;
    };
    let verdicts = |text: &str| -> Vec<(String, Verdict)> { outcome(text).into_iter().map(|o| (o.0, o.3)).collect() };
    assert_eq!(verdicts(&seed), verdicts(AS_WRITTEN));
}
