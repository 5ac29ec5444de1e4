//! Key templates: `USER#<userId>`, `ORDER#<createdAt>#<orderId>`, `PROFILE`. Text with named
//! placeholders, filled to make an item's key and matched against a key to learn its values.
//!
//! Matching takes each placeholder up to the first occurrence of the text that follows it (the
//! last takes the rest): linear in the key's length, whatever a file holds. Placeholder values
//! therefore never contain the separator that follows them, which is how the method writes keys.

use std::collections::BTreeMap;

/// Placeholders a template may hold; more are refused so matching stays cheap and clear.
pub const MAX_PLACEHOLDERS: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(String),
    Placeholder(String),
}

/// Kept as its text (`USER#<userId>`) wherever a design is saved.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Template {
    pub parts: Vec<Part>,
}

/// Values of placeholders by name.
pub type Bindings = BTreeMap<String, String>;

impl Template {
    /// A layout cell: placeholders in angle brackets (`USER#<userId>`); the rest is text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('<') {
            let Some(close) = rest[open..].find('>') else {
                return Err(format!("`{text}`: a `<` without its `>`"));
            };
            let name = rest[open + 1..open + close].trim();
            if !is_name(name) {
                return Err(format!("`{text}`: `<{name}>` is not a placeholder name (letters, digits, _)"));
            }
            push_text(&mut parts, &rest[..open]);
            parts.push(Part::Placeholder(name.to_string()));
            rest = &rest[open + close + 1..];
        }
        push_text(&mut parts, rest);
        Self::checked(text, parts)
    }

    /// A value in the design note's shorthand: quoted text is literal (`'ORDER#'`); otherwise the
    /// text is cut at `#`, and a part in angle brackets or written as a lower-case name (`USER#id`,
    /// `WAREHOUSE#warehouseId#OPEN`) is a placeholder, an upper-case or numeric part is text.
    pub fn parse_shorthand(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Some(quoted) = unquote(text) {
            return Ok(Self { parts: vec![Part::Text(quoted.to_string())] });
        }
        if text.contains('<') {
            return Self::parse(text);
        }
        let mut parts = Vec::new();
        let segments: Vec<&str> = text.split('#').collect();
        for (i, segment) in segments.iter().enumerate() {
            if i > 0 {
                push_text(&mut parts, "#");
            }
            if is_name(segment) && segment.starts_with(|c: char| c.is_ascii_lowercase()) {
                // `MEMBER#id` and `BOOK#id` in one transaction are two ids: `memberId`, `bookId`.
                let name = match (*segment, i.checked_sub(1).map(|p| segments[p])) {
                    ("id", Some(word))
                        if !word.is_empty() && word.chars().all(|c| c.is_ascii_uppercase() || c == '_') =>
                    {
                        let lower = word.to_ascii_lowercase();
                        let mut camel = String::new();
                        for (n, piece) in lower.split('_').filter(|p| !p.is_empty()).enumerate() {
                            if n == 0 {
                                camel.push_str(piece);
                            } else {
                                camel.push_str(&piece[..1].to_ascii_uppercase());
                                camel.push_str(&piece[1..]);
                            }
                        }
                        format!("{camel}Id")
                    }
                    _ => (*segment).to_string(),
                };
                parts.push(Part::Placeholder(name));
            } else {
                push_text(&mut parts, segment);
            }
        }
        Self::checked(text, parts)
    }

    fn checked(text: &str, parts: Vec<Part>) -> Result<Self, String> {
        let placeholders = parts.iter().filter(|p| matches!(p, Part::Placeholder(_))).count();
        if placeholders > MAX_PLACEHOLDERS {
            return Err(format!("`{text}`: more than {MAX_PLACEHOLDERS} placeholders"));
        }
        if parts.windows(2).any(|w| matches!(w, [Part::Placeholder(_), Part::Placeholder(_)])) {
            return Err(format!("`{text}`: two placeholders need text between them"));
        }
        Ok(Self { parts })
    }

    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Placeholder(name) => Some(name.as_str()),
            Part::Text(_) => None,
        })
    }

    pub fn is_constant(&self) -> bool {
        self.placeholders().next().is_none()
    }

    /// The text before the first placeholder (`USER#` of `USER#<userId>`).
    pub fn prefix(&self) -> &str {
        match self.parts.first() {
            Some(Part::Text(text)) => text,
            _ => "",
        }
    }

    /// The template with every placeholder given; `None` if one is missing.
    pub fn fill(&self, values: &Bindings) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Placeholder(name) => out.push_str(values.get(name)?),
            }
        }
        Some(out)
    }

    /// Whether `text` has this template's shape, adding the placeholders' values to `bound` (a
    /// placeholder already bound must have that value). `bound` is unchanged when it does not match.
    pub fn matches(&self, text: &str, bound: &mut Bindings) -> bool {
        let mut found: Vec<(&str, &str)> = Vec::new();
        let mut at = 0;
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Text(expected) => {
                    if !text[at..].starts_with(expected.as_str()) {
                        return false;
                    }
                    at += expected.len();
                }
                Part::Placeholder(name) => {
                    let end = match self.parts.get(i + 1) {
                        Some(Part::Text(next)) => match text[at..].find(next.as_str()) {
                            Some(offset) => at + offset,
                            None => return false,
                        },
                        _ => text.len(),
                    };
                    if end == at {
                        return false;
                    }
                    let value = &text[at..end];
                    let earlier = bound
                        .get(name)
                        .map(String::as_str)
                        .or_else(|| found.iter().find(|(n, _)| n == name).map(|(_, v)| *v));
                    if earlier.is_some_and(|v| v != value) {
                        return false;
                    }
                    found.push((name, value));
                    at = end;
                }
            }
        }
        if at != text.len() {
            return false;
        }
        for (name, value) in found {
            bound.insert(name.to_string(), value.to_string());
        }
        true
    }

    /// Same text in the same places, placeholders named alike or not (`USER#id` and `USER#<userId>`).
    pub fn same_shape(&self, other: &Self) -> bool {
        self.parts.len() == other.parts.len()
            && self.parts.iter().zip(&other.parts).all(|pair| match pair {
                (Part::Text(a), Part::Text(b)) => a == b,
                (Part::Placeholder(_), Part::Placeholder(_)) => true,
                _ => false,
            })
    }

    /// The placeholder of `other` standing where each of this template's stands (same shape).
    pub fn renamed_by(&self, other: &Self) -> Vec<(String, String)> {
        self.parts
            .iter()
            .zip(&other.parts)
            .filter_map(|pair| match pair {
                (Part::Placeholder(mine), Part::Placeholder(theirs)) => Some((mine.clone(), theirs.clone())),
                _ => None,
            })
            .collect()
    }
}

impl From<Template> for String {
    fn from(template: Template) -> Self {
        template.to_string()
    }
}

impl TryFrom<String> for Template {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        Self::parse(&text)
    }
}

impl std::fmt::Display for Template {
    /// In the layout's notation: placeholders in angle brackets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for part in &self.parts {
            match part {
                Part::Text(text) => f.write_str(text)?,
                Part::Placeholder(name) => write!(f, "<{name}>")?,
            }
        }
        Ok(())
    }
}

/// Appends `text` to `parts`, joining it to a text part before it.
pub(crate) fn push_text(parts: &mut Vec<Part>, text: &str) {
    if text.is_empty() {
        return;
    }
    if let Some(Part::Text(last)) = parts.last_mut() {
        last.push_str(text);
    } else {
        parts.push(Part::Text(text.to_string()));
    }
}

pub fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The text inside matching single or double quotes.
pub fn unquote(text: &str) -> Option<&str> {
    ['\'', '"'].into_iter().find_map(|q| text.strip_prefix(q).and_then(|t| t.strip_suffix(q)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_templates_fill_and_match() {
        let template = Template::parse("ORDER#<createdAt>#<orderId>").expect("parses");
        assert_eq!(template.placeholders().collect::<Vec<_>>(), ["createdAt", "orderId"]);
        let mut bound = Bindings::new();
        assert!(template.matches("ORDER#2026-01-01T00:00:00Z#o-7", &mut bound));
        assert_eq!(bound["orderId"], "o-7");
        assert_eq!(template.fill(&bound).as_deref(), Some("ORDER#2026-01-01T00:00:00Z#o-7"));
        assert!(!template.matches("ORDER##x", &mut Bindings::new()), "a placeholder is never empty");
        assert!(!template.matches("ITEM#1#2", &mut Bindings::new()));
        assert!(Template::parse("PROFILE").expect("constant").is_constant());
    }

    #[test]
    fn a_bound_placeholder_must_keep_its_value() {
        let template = Template::parse("<a>#<a>").expect("parses");
        assert!(template.matches("x#x", &mut Bindings::new()));
        let mut bound = Bindings::new();
        assert!(!template.matches("x#y", &mut bound));
        assert!(bound.is_empty(), "a failed match binds nothing");
    }

    #[test]
    fn shorthand_reads_lower_case_names_as_placeholders() {
        let template = Template::parse_shorthand("WAREHOUSE#id#OPEN").expect("parses");
        assert_eq!(template.to_string(), "WAREHOUSE#<warehouseId>#OPEN", "`id` after a word is that word's id");
        assert_eq!(Template::parse_shorthand("ORDER_LINE#id").expect("parses").to_string(), "ORDER_LINE#<orderLineId>");
        assert!(template.same_shape(&Template::parse("WAREHOUSE#<warehouseId>#OPEN").expect("layout")));
        assert_eq!(Template::parse_shorthand("'ORDER#'").expect("quoted").to_string(), "ORDER#");
        assert_eq!(Template::parse_shorthand("META").expect("text").to_string(), "META");
    }

    #[test]
    fn refuses_what_it_cannot_match_plainly() {
        assert!(Template::parse("A#<b").expect_err("open").contains("without its `>`"));
        assert!(Template::parse("<a><b>").expect_err("adjacent").contains("text between them"));
        assert!(Template::parse("<a b>").expect_err("name").contains("not a placeholder name"));
        let many = (0..9).map(|i| format!("<p{i}>")).collect::<Vec<_>>().join("#");
        assert!(Template::parse(&many).expect_err("too many").contains("more than 8"));
    }
}
