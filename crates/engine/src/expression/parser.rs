//! Recursive-descent parser for all five expression kinds, with a depth guard.
//!
//! Precedence, loosest first: OR, AND, NOT, then comparisons / BETWEEN / IN / functions.
//! Parsing only checks syntax; names, values and types are checked by `resolve`.

use super::ast::{CmpOp, RawAction, RawCondition, RawOperand, RawStep, RawUpdate, Section};
use super::lexer::{tokenize, Tok, Token};

/// Nesting deeper than this is refused, so hostile input cannot overflow the stack (a 4 KB
/// expression could otherwise nest two thousand parentheses).
const MAX_DEPTH: usize = 64;

/// Words that are grammar and never names, in any expression kind.
const KEYWORDS: [&str; 8] = ["ADD", "AND", "BETWEEN", "DELETE", "IN", "NOT", "OR", "SET"];

/// A syntax error, worded as DynamoDB words it (without the `Invalid XExpression: ` prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError(pub String);

type Parsed<T> = Result<T, SyntaxError>;

/// The most elements a document path may have (its attribute and each name or index below it):
/// DynamoDB's 32 nesting levels (fact sheet §1).
const MAX_PATH_DEPTH: usize = 32;

/// Whether a condition had a pair of parentheses around it that do nothing (`((a = :v))`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Redundant(pub bool);

struct Parser<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
    redundant_parens: bool,
}

/// Parses a condition, filter or key-condition expression; also returns its operator count.
pub fn parse_condition(text: &str) -> Parsed<(RawCondition, Redundant, usize)> {
    let mut p = Parser::new(text);
    let (condition, _) = p.or()?;
    p.expect_end()?;
    Ok((condition, Redundant(p.redundant_parens), p.operator_count()))
}

/// Parses a projection expression: paths separated by commas.
pub fn parse_projection(text: &str) -> Parsed<Vec<Vec<RawStep>>> {
    let mut p = Parser::new(text);
    let mut paths = vec![p.path()?];
    while p.peek() == &Tok::Comma {
        p.pos += 1;
        paths.push(p.path()?);
    }
    p.expect_end()?;
    Ok(paths)
}

/// Parses an update expression.
pub fn parse_update(text: &str) -> Parsed<RawUpdate> {
    let mut p = Parser::new(text);
    let mut sections = Vec::new();
    loop {
        let section = match p.peek() {
            t if t.is_keyword("SET") => Section::Set,
            t if t.is_keyword("REMOVE") => Section::Remove,
            t if t.is_keyword("ADD") => Section::Add,
            t if t.is_keyword("DELETE") => Section::Delete,
            _ => return Err(p.syntax_error()),
        };
        p.pos += 1;
        let mut actions = vec![p.action(section)?];
        while p.peek() == &Tok::Comma {
            p.pos += 1;
            actions.push(p.action(section)?);
        }
        sections.push((section, actions));
        if p.peek() == &Tok::Eof {
            // The `=` of each SET action is not an operator to DynamoDB (measured on DynamoDB Local).
            let assignments: usize =
                sections.iter().filter(|(s, _)| *s == Section::Set).map(|(_, actions)| actions.len()).sum();
            return Ok(RawUpdate { sections, operators: p.operator_count() - assignments });
        }
    }
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Self { text, tokens: tokenize(text), pos: 0, depth: 0, redundant_parens: false }
    }

    fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    /// Operators and functions, as DynamoDB counts them against its limit of 300.
    fn operator_count(&self) -> usize {
        self.tokens
            .iter()
            .enumerate()
            .filter(|(i, t)| match &t.tok {
                Tok::Eq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge | Tok::Plus | Tok::Minus => true,
                Tok::Word(w) => {
                    ["AND", "OR", "NOT", "BETWEEN", "IN"].iter().any(|k| k.eq_ignore_ascii_case(w))
                        || self.tokens.get(i + 1).is_some_and(|next| next.tok == Tok::LParen)
                }
                _ => false,
            })
            .count()
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        let last = self.tokens.len() - 1;
        &self.tokens[(self.pos + ahead).min(last)].tok
    }

    /// `Syntax error; token: "x", near: "a x b"`: the offending token and its neighbours.
    fn syntax_error(&self) -> SyntaxError {
        let at = self.pos.min(self.tokens.len() - 1);
        let token = &self.tokens[at];
        let from = if at > 0 { self.tokens[at - 1].start } else { token.start };
        let next = self.tokens.get(at + 1).filter(|t| t.tok != Tok::Eof);
        let to = next.map_or(token.end, |t| t.end);
        let near = self.text.get(from..to).unwrap_or("");
        SyntaxError(format!("Syntax error; token: \"{}\", near: \"{near}\"", token.tok.text()))
    }

    /// Consumes `tok` or fails with a syntax error there.
    fn eat(&mut self, tok: &Tok) -> Parsed<()> {
        if self.peek() == tok {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.syntax_error())
        }
    }

    fn expect_end(&self) -> Parsed<()> {
        if self.peek() == &Tok::Eof {
            Ok(())
        } else {
            Err(self.syntax_error())
        }
    }

    fn enter(&mut self) -> Parsed<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.syntax_error());
        }
        Ok(())
    }

    /// Returns the condition and whether it is nothing but one parenthesised group.
    fn or(&mut self) -> Parsed<(RawCondition, bool)> {
        self.enter()?;
        let (mut left, mut bare) = self.and()?;
        while self.peek().is_keyword("OR") {
            self.pos += 1;
            let (right, _) = self.and()?;
            left = RawCondition::Or(Box::new(left), Box::new(right));
            bare = false;
        }
        self.depth -= 1;
        Ok((left, bare))
    }

    fn and(&mut self) -> Parsed<(RawCondition, bool)> {
        let (mut left, mut bare) = self.not()?;
        while self.peek().is_keyword("AND") {
            self.pos += 1;
            let (right, _) = self.not()?;
            left = RawCondition::And(Box::new(left), Box::new(right));
            bare = false;
        }
        Ok((left, bare))
    }

    fn not(&mut self) -> Parsed<(RawCondition, bool)> {
        if self.peek().is_keyword("NOT") {
            self.pos += 1;
            self.enter()?;
            let (inner, _) = self.not()?;
            self.depth -= 1;
            return Ok((RawCondition::Not(Box::new(inner)), false));
        }
        self.primary()
    }

    fn primary(&mut self) -> Parsed<(RawCondition, bool)> {
        if self.peek() == &Tok::LParen {
            self.pos += 1;
            let (inner, inner_bare) = self.or()?;
            self.eat(&Tok::RParen)?;
            if inner_bare {
                self.redundant_parens = true;
            }
            return Ok((inner, true));
        }
        let left = self.operand()?;
        let condition = match self.peek().clone() {
            Tok::Eq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge => {
                let op = match self.peek() {
                    Tok::Eq => CmpOp::Eq,
                    Tok::Ne => CmpOp::Ne,
                    Tok::Lt => CmpOp::Lt,
                    Tok::Le => CmpOp::Le,
                    Tok::Gt => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                self.pos += 1;
                RawCondition::Compare(op, left, self.operand()?)
            }
            t if t.is_keyword("BETWEEN") => {
                self.pos += 1;
                let low = self.operand()?;
                if !self.peek().is_keyword("AND") {
                    return Err(self.syntax_error());
                }
                self.pos += 1;
                RawCondition::Between(left, low, self.operand()?)
            }
            t if t.is_keyword("IN") => {
                self.pos += 1;
                self.eat(&Tok::LParen)?;
                let mut list = vec![self.operand()?];
                while self.peek() == &Tok::Comma {
                    self.pos += 1;
                    list.push(self.operand()?);
                }
                self.eat(&Tok::RParen)?;
                RawCondition::In(left, list)
            }
            _ => match left {
                RawOperand::Call { name, args } => RawCondition::Call { name, args },
                _ => return Err(self.syntax_error()),
            },
        };
        Ok((condition, false))
    }

    /// A path, a `:value`, or a function call (functions are checked by name later).
    fn operand(&mut self) -> Parsed<RawOperand> {
        match self.peek().clone() {
            Tok::Value(v) if v.len() > 1 => {
                self.pos += 1;
                Ok(RawOperand::Value(v))
            }
            Tok::Word(name) if self.peek_at(1) == &Tok::LParen && !is_keyword(&name) => {
                self.pos += 2;
                self.enter()?;
                let mut args = vec![self.operand()?];
                while self.peek() == &Tok::Comma {
                    self.pos += 1;
                    args.push(self.operand()?);
                }
                self.eat(&Tok::RParen)?;
                self.depth -= 1;
                Ok(RawOperand::Call { name, args })
            }
            _ => Ok(RawOperand::Path(self.path()?)),
        }
    }

    fn path(&mut self) -> Parsed<Vec<RawStep>> {
        let mut steps = vec![self.path_name()?];
        loop {
            match self.peek() {
                Tok::Dot => {
                    self.pos += 1;
                    steps.push(self.path_name()?);
                }
                Tok::LBracket => {
                    self.pos += 1;
                    let Tok::Digits(digits) = self.peek().clone() else {
                        return Err(self.syntax_error());
                    };
                    let index = digits.parse::<usize>().map_err(|_| self.syntax_error())?;
                    self.pos += 1;
                    self.eat(&Tok::RBracket)?;
                    steps.push(RawStep::Index(index));
                }
                _ if steps.len() > MAX_PATH_DEPTH => {
                    return Err(SyntaxError(format!(
                        "The document path has too many nesting levels; nesting levels: {}",
                        steps.len()
                    )))
                }
                _ => return Ok(steps),
            }
        }
    }

    fn path_name(&mut self) -> Parsed<RawStep> {
        let step = match self.peek() {
            Tok::Word(w) if !is_keyword(w) && !w.as_bytes()[0].is_ascii_digit() => RawStep::Word(w.clone()),
            Tok::Name(n) if n.len() > 1 => RawStep::Name(n.clone()),
            _ => return Err(self.syntax_error()),
        };
        self.pos += 1;
        Ok(step)
    }

    fn action(&mut self, section: Section) -> Parsed<RawAction> {
        let path = self.path()?;
        match section {
            Section::Set => {
                self.eat(&Tok::Eq)?;
                Ok(RawAction::Set(path, self.set_value()?))
            }
            Section::Remove => Ok(RawAction::Remove(path)),
            Section::Add | Section::Delete => {
                let Tok::Value(v) = self.peek().clone() else {
                    return Err(self.syntax_error());
                };
                if v.len() < 2 {
                    return Err(self.syntax_error());
                }
                self.pos += 1;
                Ok(if section == Section::Add { RawAction::Add(path, v) } else { RawAction::Delete(path, v) })
            }
        }
    }

    /// `operand`, `operand + operand` or `operand - operand`, optionally in one pair of parentheses.
    fn set_value(&mut self) -> Parsed<RawOperand> {
        let wrapped = self.peek() == &Tok::LParen;
        if wrapped {
            self.pos += 1;
        }
        let left = self.operand()?;
        let value = match self.peek() {
            Tok::Plus => {
                self.pos += 1;
                RawOperand::Plus(Box::new(left), Box::new(self.operand()?))
            }
            Tok::Minus => {
                self.pos += 1;
                RawOperand::Minus(Box::new(left), Box::new(self.operand()?))
            }
            _ => left,
        };
        if wrapped {
            self.eat(&Tok::RParen)?;
        }
        Ok(value)
    }
}

fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syntax(text: &str) -> String {
        parse_update(text).unwrap_err().0
    }

    #[test]
    fn and_binds_tighter_than_or_and_not_tighter_than_and() {
        let (tree, _, operators) = parse_condition("NOT a = :a AND b = :b OR c = :c").unwrap();
        assert_eq!(operators, 6);
        let RawCondition::Or(left, _) = tree else { panic!("OR at the top") };
        let RawCondition::And(not, _) = *left else { panic!("AND under OR") };
        assert!(matches!(*not, RawCondition::Not(_)));
    }

    #[test]
    fn reports_the_token_and_its_neighbours() {
        assert_eq!(syntax("SET a = = :v"), "Syntax error; token: \"=\", near: \"= = :v\"");
        assert_eq!(syntax("SET a ="), "Syntax error; token: \"<EOF>\", near: \"=\"");
        assert_eq!(parse_projection("a, and").unwrap_err().0, "Syntax error; token: \"and\", near: \", and\"");
    }

    #[test]
    fn flags_redundant_parentheses_only_when_doubled() {
        assert!(!parse_condition("(a = :a) AND (b = :b)").unwrap().1 .0);
        assert_eq!(parse_update("SET a = :v + :w, b = size(c)").unwrap().operators, 2);
        assert!(parse_condition("((a = :a))").unwrap().1 .0);
    }

    #[test]
    fn deep_nesting_is_a_syntax_error_not_a_crash() {
        let text = format!("{}a = :v{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse_condition(&text).is_err());
        let text = format!("{}a = :v", "NOT ".repeat(5000));
        assert!(parse_condition(&text).is_err());
        let text = format!("{}a{}", "size(".repeat(3000), ")".repeat(3000));
        assert!(parse_projection(&text).is_err() && parse_condition(&text).is_err());
    }

    #[test]
    fn parses_all_update_sections() {
        let update =
            parse_update("SET a = if_not_exists(a, :z) + :one, b[2] = :v REMOVE c.d ADD n :n DELETE s :s").unwrap();
        let kinds: Vec<Section> = update.sections.iter().map(|(s, _)| *s).collect();
        assert_eq!(kinds, vec![Section::Set, Section::Remove, Section::Add, Section::Delete]);
    }
}
