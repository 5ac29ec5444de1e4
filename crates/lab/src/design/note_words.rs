//! A design note's call as people write it, made the shorthand [`super::calls`] parses.
//!
//! Designers write the options of a call in words (`Limit 20`, `newest first`, `filter email =
//! :email`), an action's condition and update in parentheses after its key (`Update PK=BOOK#id,
//! SK=META (condition attribute_exists(PK), ADD copiesAvailable 1)`), and an elided key as
//! `LOAN#…`. Each form is rewritten to the one shorthand spelling (`Limit=20`,
//! `ScanIndexForward=false`, `Filter=…`, `… ADD copiesAvailable 1 if attribute_exists(PK)`), so
//! there is one parser and every form people write means exactly what its shorthand means.

/// Words that name the page size: `Limit 20`, `limit: 20`, `page 20`, `page size 20`, `top 20`.
const LIMIT_WORDS: [&str; 6] = ["limit", "page size", "pagesize", "page", "top", "first"];

/// `text` (one action, or a whole note cell) with its worded options in shorthand.
pub fn normalize(text: &str) -> String {
    let (head, clause) = split_trailing_clause(text);
    let mut parts: Vec<String> = Vec::new();
    let mut conditions: Vec<String> = Vec::new();
    let mut updates: Vec<String> = Vec::new();
    for segment in crate::design::calls::split_top(head, ',') {
        let segment = segment.trim();
        if segment.is_empty() {
            continue;
        }
        match option(segment) {
            Some(Worded::Option(shorthand)) => parts.push(shorthand),
            Some(Worded::Condition(condition)) => conditions.push(condition),
            None => parts.push(inline_options(segment)),
        }
    }
    for piece in clause.iter().flat_map(|c| crate::design::calls::split_top(c, ',')) {
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        if let Some(Worded::Condition(condition)) = condition_words(piece) {
            conditions.push(condition);
        } else if starts_update(piece) {
            updates.push(piece.to_string());
        } else if let Some(Worded::Option(shorthand)) = option(piece) {
            parts.push(shorthand);
        } else {
            // `(sparse)`, `(idempotent)`: a remark, not part of the call.
        }
    }
    let mut out = parts.join(", ");
    if !updates.is_empty() {
        out.push(' ');
        out.push_str(&updates.join(" "));
    }
    if !conditions.is_empty() {
        if crate::design::calls::has_word(&out, "if") {
            out.push_str(" AND ");
        } else {
            out.push_str(" if ");
        }
        out.push_str(&conditions.join(" AND "));
    }
    out.trim().to_string()
}

enum Worded {
    Option(String),
    Condition(String),
}

/// One comma-separated segment that is an option in words, or `None` (a key part).
fn option(segment: &str) -> Option<Worded> {
    let lower = segment.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let joined = words.join(" ");
    for word in LIMIT_WORDS {
        if let Some(rest) = joined.strip_prefix(word).filter(|r| r.starts_with([' ', ':'])) {
            let number = rest.trim().trim_start_matches(':').trim();
            if let Some(n) = number.split_whitespace().next().filter(|n| n.parse::<u64>().is_ok()) {
                return Some(Worded::Option(format!("Limit={n}")));
            }
        }
    }
    let descending = [
        "newest first",
        "latest first",
        "most recent first",
        "desc",
        "descending",
        "reverse",
        "reverse order",
        "scanindexforward false",
        "scanindexforward: false",
        "sorted descending",
        "newest to oldest",
    ];
    let ascending =
        ["oldest first", "asc", "ascending", "scanindexforward true", "scanindexforward: true", "oldest to newest"];
    if descending.contains(&joined.as_str()) {
        return Some(Worded::Option("ScanIndexForward=false".into()));
    }
    if ascending.contains(&joined.as_str()) {
        return Some(Worded::Option("ScanIndexForward=true".into()));
    }
    if matches!(
        joined.as_str(),
        "strong" | "strongly consistent" | "consistent read" | "consistentread" | "strong read"
    ) {
        return Some(Worded::Option("ConsistentRead=true".into()));
    }
    if matches!(joined.as_str(), "eventual" | "eventually consistent" | "eventual read") {
        return Some(Worded::Option("ConsistentRead=false".into()));
    }
    for word in ["filterexpression", "filter", "where"] {
        if let Some(rest) = strip_word(segment, word) {
            return Some(Worded::Option(format!("Filter={}", rest.trim_start_matches([':', '=']).trim())));
        }
    }
    for word in ["projectionexpression", "projection", "project", "projecting", "select attributes"] {
        if let Some(rest) = strip_word(segment, word) {
            let names: Vec<&str> =
                rest.trim_start_matches([':', '=']).split([',', ' ']).filter(|n| !n.is_empty()).collect();
            return Some(Worded::Option(format!("Projection={}", names.join(" "))));
        }
    }
    condition_words(segment)
}

/// `condition X`, `if X`, `when X`, `only if X`, `with condition X`, `ConditionExpression: X`.
fn condition_words(segment: &str) -> Option<Worded> {
    for word in ["conditionexpression", "with condition", "condition", "only if", "if", "when", "requires", "require"] {
        if let Some(rest) = strip_word(segment, word) {
            return Some(Worded::Condition(rest.trim_start_matches([':', '=']).trim().to_string()));
        }
    }
    None
}

/// `segment` without its leading `word` (any case, a whole word), or `None`.
fn strip_word<'a>(segment: &'a str, word: &str) -> Option<&'a str> {
    let trimmed = segment.trim_start();
    let head = trimmed.get(..word.len())?;
    if !head.eq_ignore_ascii_case(word) {
        return None;
    }
    let rest = &trimmed[word.len()..];
    let boundary = rest.chars().next().is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
    boundary.then_some(rest)
}

fn starts_update(piece: &str) -> bool {
    ["SET", "REMOVE", "ADD", "DELETE"].iter().any(|w| strip_word(piece, w).is_some_and(|rest| !rest.trim().is_empty()))
}

/// A key part with an option after it and no comma: `PK=USER#id newest first`,
/// `PK=USER#id AND begins_with(SK, 'LOAN#') limit 20`.
fn inline_options(segment: &str) -> String {
    let lower = segment.to_ascii_lowercase();
    for marker in [" newest first", " latest first", " oldest first", " limit ", " filter ", " where "] {
        if let Some(at) = lower.find(marker) {
            if crate::design::calls::outside_quotes(segment, at) {
                let (key, rest) = segment.split_at(at);
                let rest = normalize(rest.trim());
                return format!("{}, {rest}", key.trim());
            }
        }
    }
    segment.to_string()
}

/// An action's trailing `( … )`, when it holds a condition or an update: the text before it and
/// its inside. A parenthesis that is part of an expression (`begins_with(SK, 'A')`) is kept.
fn split_trailing_clause(text: &str) -> (&str, Option<&str>) {
    let trimmed = text.trim_end();
    if !trimmed.ends_with(')') {
        return (text, None);
    }
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut open = None;
    for (i, c) in trimmed.char_indices().rev() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ')') => depth += 1,
            (None, '(') => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(open) = open else { return (text, None) };
    // `begins_with(SK, 'A')`, `attribute_exists(PK)`: a function's own parentheses, right after its name.
    if trimmed[..open].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        return (text, None);
    }
    let before = trimmed[..open].trim_end();
    (before, Some(&trimmed[open + 1..trimmed.len() - 1]))
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn options_in_words_become_shorthand() {
        assert_eq!(
            normalize("PK=MEMBER#id AND begins_with(SK,'LOAN#'), newest first, Limit 20"),
            "PK=MEMBER#id AND begins_with(SK,'LOAN#'), ScanIndexForward=false, Limit=20"
        );
        assert_eq!(normalize("filter email = :email"), "Filter=email = :email");
        assert_eq!(normalize("PK=USER#id, page size: 50"), "PK=USER#id, Limit=50");
        assert_eq!(normalize("PK=USER#id newest first"), "PK=USER#id, ScanIndexForward=false");
        assert_eq!(normalize("PK=USER#id, SK=PROFILE"), "PK=USER#id, SK=PROFILE", "a key is left alone");
        assert_eq!(
            normalize("PK=USER#id AND begins_with(SK, 'ORDER#')"),
            "PK=USER#id AND begins_with(SK, 'ORDER#')",
            "a function's parentheses are not a clause"
        );
    }

    #[test]
    fn a_clause_in_parentheses_is_the_condition_and_the_update() {
        assert_eq!(
            normalize("PK=MEMBER#id, SK=LOAN#<etc0> (condition attribute_exists(PK), REMOVE overdue)"),
            "PK=MEMBER#id, SK=LOAN#<etc0> REMOVE overdue if attribute_exists(PK)"
        );
        assert_eq!(
            normalize("PK=BOOK#id, SK=META (ADD copiesAvailable 1)"),
            "PK=BOOK#id, SK=META ADD copiesAvailable 1"
        );
        assert_eq!(
            normalize("PK=ORDER#id, SK=META SET status = 'X' if version = 3"),
            "PK=ORDER#id, SK=META SET status = 'X' if version = 3",
            "the shorthand itself is unchanged"
        );
        assert_eq!(
            normalize("PK=ORDER#id, SK=META, condition attribute_not_exists(PK)"),
            "PK=ORDER#id, SK=META if attribute_not_exists(PK)"
        );
        assert_eq!(
            normalize("PK=A#id SET a = 1, top = 3"),
            "PK=A#id SET a = 1, top = 3",
            "an attribute named like an option word"
        );
    }
}
