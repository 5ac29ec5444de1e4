//! A challenge solved as a design: the workspace's tables, each table's entity layout as the
//! mapping of the challenge's records to items (`CUST#<customerId>` → `CUST#{customerId}`, every
//! attribute of the records kept), and each pattern's call with its placeholders left for the
//! test inputs. Graded as any `dynalab-solution/1`.

use super::calls::template_request;
use super::template::{Part, Template};
use super::Design;
use crate::pack::{Challenge, ItemTemplate, Solution, SOLUTION_FORMAT};
use crate::workbook::{Call, Consistency};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// `CUST#<customerId>` as the mapping writes it: `CUST#{customerId}`.
fn mapping_text(template: &Template) -> String {
    template
        .parts
        .iter()
        .map(|part| match part {
            Part::Text(text) => text.clone(),
            Part::Placeholder(name) => format!("{{{name}}}"),
        })
        .collect()
}

/// The challenge entity an entity of the layout maps (`Order (user view)` maps `Order`).
fn entity_of<'a>(challenge: &'a Challenge, name: &str) -> Option<&'a str> {
    let base = name.split('(').next().unwrap_or(name).trim();
    challenge.entities.keys().find(|e| e.eq_ignore_ascii_case(base)).map(String::as_str)
}

/// The solution `design` (its tables as `creates`) is for `challenge`, and what it left out.
pub fn to_solution(design: &Design, creates: Vec<Value>, challenge: &Challenge, id: &str) -> (Solution, Vec<String>) {
    let mut notes = Vec::new();
    let mut mapping: BTreeMap<String, Vec<ItemTemplate>> = BTreeMap::new();
    for table in &design.tables {
        for entity in &table.entities {
            let Some(name) = entity_of(challenge, &entity.name) else {
                notes.push(format!(
                    "entity `{}` of `{}` is none of the challenge's ({}): left out",
                    entity.name,
                    table.name,
                    challenge.entities.keys().cloned().collect::<Vec<_>>().join(", ")
                ));
                continue;
            };
            let mut item = Map::new();
            for (attribute, template, _) in &entity.keys {
                item.insert(attribute.clone(), json!(mapping_text(template)));
            }
            for attribute in &entity.attributes {
                let text = attribute.example.as_deref().and_then(|e| Template::parse(e).ok()).map(|t| mapping_text(&t));
                item.insert(attribute.name.clone(), json!(text.unwrap_or_else(|| format!("{{{}}}", attribute.name))));
            }
            // The records' own attributes go with them (a record without one leaves it out).
            for record in &challenge.entities[name].records {
                for attribute in record.keys() {
                    item.entry(attribute.clone()).or_insert_with(|| json!(format!("{{{attribute}}}")));
                }
            }
            mapping.entry(name.to_string()).or_default().push(ItemTemplate { table: table.name.clone(), item });
        }
    }
    let mut patterns = BTreeMap::new();
    for pattern in &challenge.patterns {
        let found = design.tables.iter().find_map(|t| t.calls.iter().find(|c| c.id == pattern.id).map(|c| (t, c)));
        let Some((table, call)) = found else {
            notes.push(format!("pattern {} has no call in the design", pattern.id));
            continue;
        };
        // The design's own choice, as `dynalab check` reads it: a challenge that asks for a strong
        // read is failed by an eventual one (a pattern without a row is eventual, said).
        let row = design.inventory.iter().find(|r| r.id == pattern.id);
        if row.and_then(|r| r.consistency).is_none() && pattern.consistency == Consistency::Strong {
            notes.push(format!(
                "pattern {} has no consistency in the design's inventory: eventual taken, and the challenge asks for strong",
                pattern.id
            ));
        }
        let strong = row.is_some_and(|r| r.consistency == Some(Consistency::Strong));
        match template_request(table, &call.operation, &call.key_condition, call.index.as_deref(), strong) {
            Ok(request) => {
                patterns.insert(
                    pattern.id.clone(),
                    vec![Call { operation: Some(call.operation.clone()), request: Some(request), cli: None }],
                );
            }
            Err(e) => notes.push(format!("pattern {}: its call could not be made: {e}", pattern.id)),
        }
    }
    (Solution { format: SOLUTION_FORMAT.into(), challenge: id.to_string(), tables: creates, mapping, patterns }, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::markdown::read;
    use crate::pack::challenge::grade;
    use crate::pack::Pack;
    use crate::workbook::analysis::Verdict;
    use dynalab_engine::FixedClock;
    use std::sync::Arc;

    #[test]
    fn the_cart_challenge_solved_as_a_design_is_graded_like_its_reference() {
        let pack = Pack::parse(include_str!("../../../../packs/cart.json")).expect("pack");
        let challenge = pack.challenge.as_ref().expect("a challenge");
        let document = "## Access patterns\n\n| # | Pattern | Type | Peak/s | Consistency |\n|---|---|---|---|---|\n| AP1 | cart | read | 50 | eventual |\n| AP2 | one line | read | 20 | strong |\n| AP3 | profile | read | 10 | eventual |\n\n## Table: cart\n**Keys:** pk (S), sk (S)\n\n| Entity | pk | sk |\n|---|---|---|\n| Customer | CUST#<customerId> | PROFILE |\n| CartLine | CUST#<customerId> | LINE#<sku> |\n\n| # | Pattern | Operation | Key condition | Index |\n|---|---|---|---|---|\n| AP1 | cart | Query | pk=CUST#<customerId> AND begins_with(sk, 'LINE#') | base |\n| AP2 | one line | GetItem | pk=CUST#<customerId>, sk=LINE#<sku> | base |\n| AP3 | profile | GetItem | pk=CUST#<customerId>, sk=PROFILE | base |\n";
        let (design, _) = read(document).expect("reads");
        let creates = design.to_workbook().expect("workbook").workbook.tables;
        let (solution, notes) = to_solution(&design, creates, challenge, "cart");
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(solution.mapping["CartLine"][0].item["sk"], json!("LINE#{sku}"));
        assert_eq!(
            solution.patterns["AP2"][0].request.as_ref().expect("request")["ConsistentRead"],
            true,
            "AP2 is strong"
        );
        let graded = grade(challenge, &solution, Arc::new(FixedClock::at(1_700_000_000_000))).expect("grades");
        assert_eq!(graded.verdict, Verdict::Pass, "{:#?}", graded.patterns);
        assert_eq!(graded.score, 100);
        // The strong read chosen as eventual in the design is graded as eventual: it fails.
        let (eventual, _) = read(
            &document.replace("| AP2 | one line | read | 20 | strong |", "| AP2 | one line | read | 20 | eventual |"),
        )
        .expect("reads");
        let creates = eventual.to_workbook().expect("workbook").workbook.tables;
        let (solution, _) = to_solution(&eventual, creates, challenge, "cart");
        assert!(solution.patterns["AP2"][0]
            .request
            .as_ref()
            .expect("request")
            .get("ConsistentRead")
            .is_none_or(|c| c == false));
        let graded = grade(challenge, &solution, Arc::new(FixedClock::at(1_700_000_000_000))).expect("grades");
        assert_eq!(graded.verdict, Verdict::Fail);
        let ap2 = graded.patterns.iter().find(|p| p.id == "AP2").expect("AP2");
        assert!(ap2.reasons.iter().any(|r| r.contains("strong consistency")), "{:?}", ap2.reasons);
        // A design without a consistency for it is eventual too, and the note says so.
        let (unsaid, _) =
            read(&document.replace("| AP2 | one line | read | 20 | strong |", "| AP2 | one line | read | 20 | |"))
                .expect("reads");
        let creates = unsaid.to_workbook().expect("workbook").workbook.tables;
        let (_, notes) = to_solution(&unsaid, creates, challenge, "cart");
        assert!(notes.iter().any(|n| n.starts_with("pattern AP2 has no consistency")), "{notes:?}");
        // A Scan for the cart fails, as the reference's naive solution does.
        let scan = document.replace(
            "| AP1 | cart | Query | pk=CUST#<customerId> AND begins_with(sk, 'LINE#') | base |",
            "| AP1 | cart | Scan | Filter=pk = 'CUST#<customerId>' | base |",
        );
        let (design, _) = read(&scan).expect("reads");
        let creates = design.to_workbook().expect("workbook").workbook.tables;
        let (solution, _) = to_solution(&design, creates, challenge, "cart");
        let graded = grade(challenge, &solution, Arc::new(FixedClock::at(1_700_000_000_000))).expect("grades");
        assert_eq!(graded.patterns[0].verdict, Verdict::Fail);
        assert!(graded.score < 100);
    }
}
