//! DynamoDB's PartiQL subset: a lexer and a recursive-descent parser for SELECT, INSERT, UPDATE
//! and DELETE, with `?` parameters, PartiQL literals (`'text'`, numbers, `<<sets>>`, `{maps}`,
//! `[lists]`), paths (`a.b[0]`, `"quoted"`), and the WHERE operators DynamoDB accepts.

use crate::error::{DynamoError, Result};

/// The deepest nesting of expressions or literals accepted.
const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Quoted(String),
    Text(String),
    Number(String),
    Param,
    Symbol(&'static str),
}

#[derive(Debug, Clone, PartialEq)]
pub enum PathStep {
    Name(String),
    Index(u64),
}

pub type Path = Vec<PathStep>;

#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Text(String),
    Number(String),
    Bool(bool),
    Null,
    List(Vec<Expr>),
    Map(Vec<(String, Expr)>),
    Set(Vec<Expr>),
}

/// Where a token is in the statement, as DynamoDB's messages give it (`at 1:8:16`): line and
/// column counted in characters from 1, and the token's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub line: usize,
    pub column: usize,
    pub length: usize,
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.line, self.column, self.length)
    }
}

/// A function call: its name in lower case, its arguments, and where the name and each
/// argument's first token are (DynamoDB's messages point at them).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Vec<Expr>,
    pub at: Span,
    pub args_at: Vec<Span>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Literal(Literal),
    Param(usize),
    Path(Path),
    Compare(&'static str, Box<Expr>, Box<Expr>),
    Arith(&'static str, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Between(Box<Expr>, Box<Expr>, Box<Expr>),
    In(Box<Expr>, Vec<Expr>),
    Call(Call),
    Missing(Box<Expr>, bool),
    /// `x IS [NOT] NULL | BOOLEAN | STRING | …`: the DynamoDB type code the value must (not) have.
    IsType(Box<Expr>, &'static str, bool),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    Select {
        projection: Option<Vec<Path>>,
        table: String,
        index: Option<String>,
        filter: Option<Expr>,
        descending: bool,
    },
    Insert {
        table: String,
        item: Expr,
    },
    Update {
        table: String,
        set: Vec<(Path, Expr)>,
        remove: Vec<Path>,
        filter: Option<Expr>,
        returning: Option<String>,
    },
    Delete {
        table: String,
        filter: Option<Expr>,
        returning: Option<String>,
    },
}

impl Statement {
    pub fn is_read(&self) -> bool {
        matches!(self, Self::Select { .. })
    }

    pub fn table(&self) -> &str {
        match self {
            Self::Select { table, .. }
            | Self::Insert { table, .. }
            | Self::Update { table, .. }
            | Self::Delete { table, .. } => table,
        }
    }
}

/// A complete statement followed by more tokens (2026 evidence: the same words after every kind of
/// statement, a stray parenthesis, ORDER BY out of place, a number split from its exponent).
const LEFTOVER: &str = "Statement wasn't well formed, can't be processed: Unexpected token after expression";

/// Why the lexer stopped.
enum Unreadable {
    /// What DynamoDB refuses with nothing after the colon: a `#`, an unterminated block comment,
    /// a number whose exponent or scale does not fit 32 bits (its parser's BigDecimal).
    Blank,
    /// Anything else (an unterminated string): the statement is quoted back.
    Statement,
}

fn malformed(statement: &str) -> DynamoError {
    DynamoError::validation(format!("Statement wasn't well formed, can't be processed: {statement}"))
}

/// The tokens of `text` and where each is.
fn lex(text: &str) -> std::result::Result<(Vec<Token>, Vec<Span>), Unreadable> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut spans = Vec::new();
    let (mut line, mut line_start) = (1, 0);
    let mut i = 0;
    while i < chars.len() {
        // Each token pushed since the last turn gets its span here, from where it started.
        let start = i;
        let pushed = tokens.len();
        lex_one(&chars, &mut i, &mut tokens)?;
        if tokens.len() > pushed {
            spans.push(Span { line, column: start - line_start + 1, length: i - start });
        }
        for (at, c) in chars.iter().enumerate().take(i).skip(start) {
            if *c == '\n' {
                line += 1;
                line_start = at + 1;
            }
        }
    }
    Ok((tokens, spans))
}

/// Reads the token (or the whitespace) at `*i`, moving `*i` past it.
fn lex_one(chars: &[char], at: &mut usize, tokens: &mut Vec<Token>) -> std::result::Result<(), Unreadable> {
    let mut i = *at;
    {
        let c = chars[i];
        if c == '-' && chars.get(i + 1) == Some(&'-') {
            while chars.get(i).is_some_and(|c| *c != '\n') {
                i += 1;
            }
            *at = i;
            return Ok(());
        }
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            let end = (i + 2..chars.len().saturating_sub(1)).find(|&j| chars[j] == '*' && chars[j + 1] == '/');
            *at = end.ok_or(Unreadable::Blank)? + 2;
            return Ok(());
        }
        if c == '#' {
            return Err(Unreadable::Blank);
        }
        if c.is_whitespace() {
            i += 1;
            *at = i;
            return Ok(());
        }
        if c == '\'' || c == '"' {
            let mut value = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    Some(&q) if q == c && chars.get(i + 1) == Some(&c) => {
                        value.push(c);
                        i += 2;
                    }
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(&other) => {
                        value.push(other);
                        i += 1;
                    }
                    None => return Err(Unreadable::Statement),
                }
            }
            tokens.push(if c == '\'' { Token::Text(value) } else { Token::Quoted(value) });
            *at = i;
            return Ok(());
        }
        if c.is_ascii_digit()
            || (c == '-'
                && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                && !matches!(
                    tokens.last(),
                    Some(
                        Token::Number(_) | Token::Word(_) | Token::Quoted(_) | Token::Param | Token::Symbol(")" | "]")
                    )
                ))
        {
            let start = i;
            i += 1;
            while chars.get(i).is_some_and(|d| d.is_ascii_digit() || *d == '.' || *d == 'e' || *d == 'E')
                || (matches!(chars.get(i), Some('-' | '+')) && matches!(chars.get(i - 1), Some('e' | 'E')))
            {
                i += 1;
            }
            let number: String = chars[start..i].iter().collect();
            if !scale_fits(&number) {
                return Err(Unreadable::Blank);
            }
            tokens.push(Token::Number(number));
            *at = i;
            return Ok(());
        }
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while chars.get(i).is_some_and(|d| d.is_alphanumeric() || *d == '_') {
                i += 1;
            }
            tokens.push(Token::Word(chars[start..i].iter().collect()));
            *at = i;
            return Ok(());
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        let symbol = ["<<", ">>", "<=", ">=", "<>", "!="].into_iter().find(|s| *s == two);
        if let Some(symbol) = symbol {
            tokens.push(Token::Symbol(symbol));
            i += 2;
            *at = i;
            return Ok(());
        }
        let one = [".", ",", "(", ")", "[", "]", "{", "}", ":", "=", "<", ">", "+", "-", "*"]
            .into_iter()
            .find(|s| s.starts_with(c));
        match (c, one) {
            ('?', _) => tokens.push(Token::Param),
            (_, Some(symbol)) => tokens.push(Token::Symbol(symbol)),
            _ => return Err(Unreadable::Statement),
        }
        i += 1;
    }
    *at = i;
    Ok(())
}

/// Whether a number literal's exponent, and its scale (digits after the point less the exponent),
/// each fit a 32-bit integer, as the BigDecimal DynamoDB's parser reads it into requires.
fn scale_fits(number: &str) -> bool {
    let (mantissa, exponent) = match number.find(['e', 'E']) {
        Some(at) => (&number[..at], &number[at + 1..]),
        None => (number, "0"),
    };
    let Ok(exponent) = exponent.parse::<i64>() else { return exponent.is_empty() };
    let fraction = mantissa.split_once('.').map_or(0, |(_, f)| f.len() as i64);
    i32::try_from(exponent).is_ok() && i32::try_from(fraction - exponent).is_ok()
}

struct Parser {
    tokens: Vec<Token>,
    spans: Vec<Span>,
    at: usize,
    params: usize,
    depth: usize,
    /// DynamoDB's own words for a statement it refuses on a specific rule, said instead of the
    /// generic "wasn't well formed".
    refusal: Option<String>,
}

type Parsed<T> = std::result::Result<T, ()>;
/// An UPDATE's SET assignments and REMOVE paths.
type Assignments = (Vec<(Path, Expr)>, Vec<Path>);

impl Parser {
    /// Where the next token is (the statement's end when there is none).
    fn span(&self) -> Span {
        self.spans.get(self.at).copied().unwrap_or_default()
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn keyword(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect_keyword(&mut self, word: &str) -> Parsed<()> {
        self.keyword(word).then_some(()).ok_or(())
    }

    fn symbol(&mut self, symbol: &str) -> bool {
        if matches!(self.peek(), Some(Token::Symbol(s)) if *s == symbol) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, symbol: &str) -> Parsed<()> {
        self.symbol(symbol).then_some(()).ok_or(())
    }

    fn name(&mut self) -> Parsed<String> {
        match self.tokens.get(self.at).cloned() {
            Some(Token::Word(w) | Token::Quoted(w)) => {
                self.at += 1;
                Ok(w)
            }
            _ => Err(()),
        }
    }

    fn path(&mut self) -> Parsed<Path> {
        if matches!(self.peek(), Some(Token::Word(w)) if is_reserved(w)) {
            // An unquoted reserved word names no attribute (DynamoDB's parser quotes the statement).
            return Err(());
        }
        let mut path = vec![PathStep::Name(self.name()?)];
        loop {
            if self.symbol(".") {
                if matches!(self.peek(), Some(Token::Word(w)) if is_reserved(w)) {
                    self.refusal =
                        Some("Statement wasn't well formed, can't be processed: Invalid path dot component".into());
                    return Err(());
                }
                path.push(PathStep::Name(self.name()?));
            } else if self.symbol("[") {
                let Some(Token::Number(n)) = self.tokens.get(self.at).cloned() else { return Err(()) };
                self.at += 1;
                path.push(PathStep::Index(n.parse().map_err(|_| ())?));
                self.expect("]")?;
            } else {
                return Ok(path);
            }
        }
    }

    /// The type after `IS [NOT]`: one DynamoDB can test, or a PartiQL type it refuses by name
    /// (as DynamoDB's parser names it: `INT` is INTEGER). Any other word is a parse error.
    fn is_type(&mut self) -> Parsed<IsTypeName> {
        let Some(Token::Word(word)) = self.peek().cloned() else { return Err(()) };
        let upper = word.to_ascii_uppercase();
        self.at += 1;
        let supported = match upper.as_str() {
            "NULL" => Some("NULL"),
            "BOOL" | "BOOLEAN" => Some("BOOL"),
            "STRING" => Some("S"),
            "NUMERIC" => Some("N"),
            "BLOB" => Some("B"),
            "STRUCT" | "TUPLE" => Some("M"),
            "LIST" => Some("L"),
            _ => None,
        };
        if let Some(code) = supported {
            return Ok(IsTypeName::Supported(code));
        }
        let unsupported = match upper.as_str() {
            "INT" | "INTEGER" => "INTEGER",
            "CHAR" | "CHARACTER" => "CHARACTER",
            "VARCHAR" => "CHARACTER_VARYING",
            "DOUBLE" if self.keyword("PRECISION") => "DOUBLE_PRECISION",
            "DECIMAL" => "DECIMAL",
            "FLOAT" => "FLOAT",
            "REAL" => "REAL",
            "SMALLINT" => "SMALLINT",
            "DATE" => "DATE",
            "TIME" => "TIME",
            "TIMESTAMP" => "TIMESTAMP",
            "SYMBOL" => "SYMBOL",
            "CLOB" => "CLOB",
            "SEXP" => "SEXP",
            "BAG" => "BAG",
            _ => return Err(()),
        };
        Ok(IsTypeName::Unsupported(unsupported))
    }

    /// An UPDATE's SET and REMOVE clauses, one after another; at least one.
    fn assignments(&mut self) -> Parsed<Assignments> {
        let (mut set, mut remove) = (Vec::new(), Vec::new());
        loop {
            if self.keyword("SET") {
                loop {
                    let path = self.path()?;
                    self.expect("=")?;
                    set.push((path, self.additive()?));
                    if !self.symbol(",") {
                        break;
                    }
                }
            } else if self.keyword("REMOVE") {
                loop {
                    remove.push(self.path()?);
                    if !self.symbol(",") {
                        break;
                    }
                }
            } else {
                break;
            }
        }
        if set.is_empty() && remove.is_empty() {
            return Err(());
        }
        Ok((set, remove))
    }

    /// A SELECT column: a path; a function there is refused where it stands.
    fn column(&mut self) -> Parsed<Path> {
        if matches!(self.tokens.get(self.at + 1), Some(Token::Symbol("("))) {
            let at = self.span();
            return self.refuse(format!("Unexpected path component at {at}"));
        }
        self.path()
    }

    /// `"table"` or `"table"."index"`, as DynamoDB checks them before looking the table up.
    fn table(&mut self) -> Parsed<(String, Option<String>)> {
        let table = self.name()?;
        let index = if self.symbol(".") { Some(self.name()?) } else { None };
        if self.symbol(".") {
            return self.refuse("A path may contain at most 2 components in the FROM clause");
        }
        if table.is_empty() || index.as_ref().is_some_and(String::is_empty) {
            return self.refuse("Path component cannot be an empty string");
        }
        Ok((table, index))
    }

    /// After a table name: a name that starts no clause is an alias (`t`, `AS t`), which DynamoDB
    /// refuses in its own words.
    fn no_alias(&mut self) -> Parsed<()> {
        const CLAUSES: [&str; 6] = ["WHERE", "ORDER", "SET", "REMOVE", "RETURNING", "VALUE"];
        match self.peek() {
            Some(Token::Word(w)) if !CLAUSES.iter().any(|c| w.eq_ignore_ascii_case(c)) => {
                self.refuse("Aliasing is not supported")
            }
            Some(Token::Quoted(_)) => self.refuse("Aliasing is not supported"),
            _ => Ok(()),
        }
    }

    fn refuse<T>(&mut self, message: impl Into<String>) -> Parsed<T> {
        self.refusal = Some(message.into());
        Err(())
    }

    fn statement(&mut self) -> Parsed<Statement> {
        if self.keyword("SELECT") {
            let projection = if self.symbol("*") {
                None
            } else {
                let mut paths = vec![self.column()?];
                while self.symbol(",") {
                    paths.push(self.column()?);
                }
                Some(paths)
            };
            self.expect_keyword("FROM")?;
            let (table, index) = self.table()?;
            self.no_alias()?;
            let filter = if self.keyword("WHERE") { Some(self.expr()?) } else { None };
            let mut descending = false;
            if self.keyword("ORDER") {
                self.expect_keyword("BY")?;
                self.path()?;
                descending = self.keyword("DESC");
                if !descending {
                    self.keyword("ASC");
                }
            }
            return Ok(Statement::Select { projection, table, index, filter, descending });
        }
        if self.keyword("INSERT") {
            self.expect_keyword("INTO")?;
            let table = self.name()?;
            if !self.keyword("VALUE") {
                // An alias here is not one: the statement ends at the table, and what follows is left over.
                return self.refuse(LEFTOVER);
            }
            let item = self.primary()?;
            return Ok(Statement::Insert { table, item });
        }
        if self.keyword("FROM") {
            // The FROM-first UPDATE: `FROM "t" WHERE <key> SET … | REMOVE …`, in that order.
            let table = self.name()?;
            self.no_alias()?;
            self.expect_keyword("WHERE")?;
            let filter = Some(self.expr()?);
            let (set, remove) = self.assignments()?;
            let returning = self.returning()?;
            return Ok(Statement::Update { table, set, remove, filter, returning });
        }
        if self.keyword("UPDATE") {
            let table = self.name()?;
            self.no_alias()?;
            let (set, remove) = self.assignments()?;
            let filter = if self.keyword("WHERE") { Some(self.expr()?) } else { None };
            let returning = self.returning()?;
            return Ok(Statement::Update { table, set, remove, filter, returning });
        }
        if self.keyword("DELETE") {
            self.expect_keyword("FROM")?;
            let table = self.name()?;
            self.no_alias()?;
            let filter = if self.keyword("WHERE") { Some(self.expr()?) } else { None };
            let returning = self.returning()?;
            if let Some(other) = returning.as_deref().filter(|r| *r != "ALL_OLD") {
                let clause = match other {
                    "UPDATED_OLD" => "MODIFIED OLD",
                    "UPDATED_NEW" => "MODIFIED NEW",
                    _ => "ALL NEW",
                };
                return self.refuse(format!(
                    "Invalid returning clause: RETURNING {clause} *. Only RETURNING ALL OLD * is allowed in DELETE statements."
                ));
            }
            return Ok(Statement::Delete { table, filter, returning });
        }
        self.refuse("Statement wasn't well formed, can't be processed: Expected data manipulation")
    }

    /// `RETURNING ALL|MODIFIED OLD|NEW *` as a ReturnValues value.
    fn returning(&mut self) -> Parsed<Option<String>> {
        if !self.keyword("RETURNING") {
            return Ok(None);
        }
        let scope = if self.keyword("ALL") {
            "ALL"
        } else if self.keyword("MODIFIED") {
            "UPDATED"
        } else {
            return Err(());
        };
        let image = if self.keyword("OLD") {
            "OLD"
        } else if self.keyword("NEW") {
            "NEW"
        } else {
            return Err(());
        };
        self.expect("*")?;
        Ok(Some(format!("{scope}_{image}")))
    }

    fn enter(&mut self) -> Parsed<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(()).ok_or(())
    }

    fn expr(&mut self) -> Parsed<Expr> {
        self.enter()?;
        let mut left = self.and()?;
        while self.keyword("OR") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        self.depth -= 1;
        Ok(left)
    }

    fn and(&mut self) -> Parsed<Expr> {
        let mut left = self.not()?;
        while self.keyword("AND") {
            left = Expr::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Parsed<Expr> {
        if self.keyword("NOT") {
            self.enter()?;
            let inner = self.not()?;
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(inner)));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Parsed<Expr> {
        let left = self.additive()?;
        for (symbol, op) in [("=", "="), ("<>", "<>"), ("!=", "<>"), ("<=", "<="), (">=", ">="), ("<", "<"), (">", ">")]
        {
            if self.symbol(symbol) {
                return Ok(Expr::Compare(op, Box::new(left), Box::new(self.additive()?)));
            }
        }
        if self.keyword("BETWEEN") {
            let low = self.additive()?;
            self.expect_keyword("AND")?;
            return Ok(Expr::Between(Box::new(left), Box::new(low), Box::new(self.additive()?)));
        }
        if self.keyword("IN") {
            let close = if self.symbol("[") {
                "]"
            } else if self.symbol("(") {
                ")"
            } else {
                return Err(());
            };
            let mut items = vec![self.additive()?];
            while self.symbol(",") {
                items.push(self.additive()?);
            }
            self.expect(close)?;
            return Ok(Expr::In(Box::new(left), items));
        }
        if matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case("IS")) {
            let is_at = self.span();
            self.at += 1;
            let negated = self.keyword("NOT");
            if matches!(left, Expr::Param(_)) {
                self.refusal =
                    Some("The left hand side argument to IS must be a Variable Reference, Literal, or Path".into());
                return Err(());
            }
            if self.keyword("MISSING") {
                return Ok(Expr::Missing(Box::new(left), negated));
            }
            return match self.is_type()? {
                IsTypeName::Supported(code) => Ok(Expr::IsType(Box::new(left), code, negated)),
                IsTypeName::Unsupported(name) => {
                    self.refusal = Some(format!(
                        "Unsupported data type for IS operator: {name}. Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST] at {is_at}"
                    ));
                    Err(())
                }
            };
        }
        Ok(left)
    }

    fn additive(&mut self) -> Parsed<Expr> {
        let mut left = self.primary()?;
        loop {
            let op = if self.symbol("+") {
                "+"
            } else if self.symbol("-") {
                "-"
            } else {
                return Ok(left);
            };
            left = Expr::Arith(op, Box::new(left), Box::new(self.primary()?));
        }
    }

    fn primary(&mut self) -> Parsed<Expr> {
        self.enter()?;
        let Some(token) = self.tokens.get(self.at).cloned() else {
            // The statement breaks off where a term should be (`… WHERE`).
            self.refusal = Some("Statement wasn't well formed, can't be processed: Unexpected term".into());
            return Err(());
        };
        let expr = match token {
            Token::Param => {
                self.at += 1;
                self.params += 1;
                Expr::Param(self.params - 1)
            }
            Token::Text(s) => {
                self.at += 1;
                Expr::Literal(Literal::Text(s))
            }
            Token::Number(n) => {
                self.at += 1;
                Expr::Literal(Literal::Number(n))
            }
            Token::Symbol("(") => {
                self.at += 1;
                let inner = self.expr()?;
                self.expect(")")?;
                inner
            }
            Token::Symbol("[") => {
                self.at += 1;
                Expr::Literal(Literal::List(self.items("]")?))
            }
            Token::Symbol("<<") => {
                self.at += 1;
                Expr::Literal(Literal::Set(self.items(">>")?))
            }
            Token::Symbol("{") => {
                self.at += 1;
                let mut members = Vec::new();
                if !self.symbol("}") {
                    loop {
                        let Some(Token::Text(key) | Token::Quoted(key)) = self.tokens.get(self.at).cloned() else {
                            return Err(());
                        };
                        self.at += 1;
                        self.expect(":")?;
                        members.push((key, self.additive()?));
                        if self.symbol("}") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                Expr::Literal(Literal::Map(members))
            }
            Token::Word(w) if w.eq_ignore_ascii_case("true") || w.eq_ignore_ascii_case("false") => {
                self.at += 1;
                Expr::Literal(Literal::Bool(w.eq_ignore_ascii_case("true")))
            }
            Token::Word(w) if w.eq_ignore_ascii_case("null") => {
                self.at += 1;
                Expr::Literal(Literal::Null)
            }
            Token::Word(w) if matches!(self.tokens.get(self.at + 1), Some(Token::Symbol("("))) => {
                let at = self.span();
                self.at += 2;
                let (mut args, mut args_at) = (Vec::new(), Vec::new());
                if !self.symbol(")") {
                    loop {
                        args_at.push(self.span());
                        args.push(self.additive()?);
                        if self.symbol(")") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                Expr::Call(Call { name: w.to_ascii_lowercase(), args, at, args_at })
            }
            Token::Word(_) | Token::Quoted(_) => Expr::Path(self.path()?),
            Token::Symbol(_) => return Err(()),
        };
        self.depth -= 1;
        Ok(expr)
    }

    fn items(&mut self, close: &str) -> Parsed<Vec<Expr>> {
        let mut items = Vec::new();
        if self.symbol(close) {
            return Ok(items);
        }
        loop {
            items.push(self.additive()?);
            if self.symbol(close) {
                return Ok(items);
            }
            self.expect(",")?;
        }
    }
}

enum IsTypeName {
    Supported(&'static str),
    Unsupported(&'static str),
}

/// The words DynamoDB's PartiQL parser reserves: unquoted, none names an attribute (`m.value` or
/// `value = 1` is refused; `"value"` is fine). Measured word by word against DynamoDB Local, whose
/// PartiQL parser is the service's (2026-12-07); sorted for the binary search.
const RESERVED: [&str; 242] = [
    "absolute",
    "action",
    "add",
    "all",
    "allocate",
    "alter",
    "and",
    "any",
    "are",
    "as",
    "asc",
    "assertion",
    "at",
    "authorization",
    "avg",
    "bag",
    "begin",
    "between",
    "bit",
    "bit_length",
    "blob",
    "bool",
    "boolean",
    "by",
    "cascade",
    "cascaded",
    "case",
    "cast",
    "catalog",
    "char",
    "char_length",
    "character",
    "character_length",
    "check",
    "clob",
    "close",
    "coalesce",
    "collate",
    "collation",
    "column",
    "commit",
    "conflict",
    "connect",
    "connection",
    "constraint",
    "constraints",
    "continue",
    "convert",
    "corresponding",
    "count",
    "create",
    "cross",
    "current",
    "current_date",
    "current_time",
    "current_timestamp",
    "current_user",
    "cursor",
    "date",
    "date_add",
    "date_diff",
    "deallocate",
    "dec",
    "decimal",
    "declare",
    "default",
    "deferrable",
    "deferred",
    "delete",
    "desc",
    "describe",
    "descriptor",
    "diagnostics",
    "disconnect",
    "distinct",
    "do",
    "domain",
    "double",
    "drop",
    "else",
    "end",
    "escape",
    "except",
    "exception",
    "exec",
    "execute",
    "exists",
    "external",
    "extract",
    "false",
    "fetch",
    "first",
    "float",
    "for",
    "foreign",
    "found",
    "from",
    "full",
    "get",
    "global",
    "go",
    "goto",
    "grant",
    "group",
    "having",
    "identity",
    "immediate",
    "in",
    "index",
    "indicator",
    "initially",
    "inner",
    "input",
    "insensitive",
    "insert",
    "int",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "isolation",
    "join",
    "key",
    "language",
    "last",
    "left",
    "let",
    "level",
    "like",
    "limit",
    "list",
    "local",
    "lower",
    "match",
    "max",
    "min",
    "missing",
    "modified",
    "module",
    "names",
    "national",
    "natural",
    "nchar",
    "new",
    "next",
    "no",
    "not",
    "nothing",
    "null",
    "nullif",
    "numeric",
    "octet_length",
    "of",
    "old",
    "on",
    "only",
    "open",
    "option",
    "or",
    "order",
    "outer",
    "output",
    "overlaps",
    "pad",
    "partial",
    "pivot",
    "position",
    "precision",
    "prepare",
    "preserve",
    "primary",
    "prior",
    "privileges",
    "procedure",
    "public",
    "read",
    "real",
    "references",
    "relative",
    "remove",
    "restrict",
    "returning",
    "revoke",
    "right",
    "rollback",
    "rows",
    "schema",
    "scroll",
    "section",
    "select",
    "session",
    "session_user",
    "set",
    "sexp",
    "size",
    "smallint",
    "some",
    "space",
    "sql",
    "sqlcode",
    "sqlerror",
    "sqlstate",
    "string",
    "struct",
    "substring",
    "sum",
    "symbol",
    "system_user",
    "table",
    "temporary",
    "then",
    "time",
    "timestamp",
    "to",
    "transaction",
    "translate",
    "translation",
    "trim",
    "true",
    "tuple",
    "union",
    "unique",
    "unknown",
    "unpivot",
    "update",
    "upper",
    "usage",
    "user",
    "using",
    "value",
    "values",
    "varchar",
    "varying",
    "view",
    "when",
    "whenever",
    "where",
    "with",
    "work",
    "write",
    "zone",
];

fn is_reserved(word: &str) -> bool {
    RESERVED.binary_search(&word.to_ascii_lowercase().as_str()).is_ok()
}

/// Parses one statement; also returns how many `?` it has.
pub fn parse(text: &str) -> Result<(Statement, usize)> {
    let (tokens, spans) = lex(text).map_err(|unreadable| match unreadable {
        Unreadable::Blank => malformed(""),
        Unreadable::Statement => malformed(text),
    })?;
    let mut parser = Parser { tokens, spans, at: 0, params: 0, depth: 0, refusal: None };
    let statement = parser.statement().map_err(|()| match parser.refusal.take() {
        Some(refusal) => DynamoError::validation(refusal),
        None => malformed(text),
    })?;
    if parser.at != parser.tokens.len() {
        return Err(DynamoError::validation(LEFTOVER));
    }
    Ok((statement, parser.params))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_parse() {
        let (select, params) =
            parse("SELECT a, b.c[1] FROM \"t\".\"i\" WHERE pk = ? AND sk BETWEEN 1 AND 3 ORDER BY sk DESC")
                .expect("select");
        assert_eq!(params, 1);
        let Statement::Select { projection, table, index, descending, .. } = select else { panic!("not a select") };
        assert_eq!((table.as_str(), index.as_deref(), descending), ("t", Some("i"), true));
        assert_eq!(
            projection.expect("paths")[1],
            vec![PathStep::Name("b".into()), PathStep::Name("c".into()), PathStep::Index(1)]
        );
        let (insert, _) = parse("INSERT INTO t VALUE {'pk': 'it''s', 'n': -1.5e3, 's': <<'a'>>, 'l': [1, true, null]}")
            .expect("insert");
        assert!(matches!(insert, Statement::Insert { .. }));
        let (update, _) =
            parse("update t set n = n + 1, m = 'x' remove o where pk = 'a' returning all new *").expect("update");
        let Statement::Update { set, remove, returning, .. } = update else { panic!("not an update") };
        assert_eq!((set.len(), remove.len(), returning.as_deref()), (2, 1, Some("ALL_NEW")));
    }

    #[test]
    fn spans_count_lines_and_columns_in_characters_from_one() {
        let (_, spans) = lex("SELECT é\n  size(x)").ok().expect("lexes");
        let at: Vec<String> = spans.iter().map(ToString::to_string).collect();
        assert_eq!(at, ["1:1:6", "1:8:1", "2:3:4", "2:7:1", "2:8:1", "2:9:1"]);
    }

    #[test]
    fn malformed_statements_are_refused_whole() {
        assert_eq!(
            parse("SELEC * FROM t").expect_err("not a statement").message,
            "Statement wasn't well formed, can't be processed: Expected data manipulation"
        );
        for text in ["SELECT * FROM", "INSERT INTO t VALUE {'a' 1}", "SELECT * FROM t WHERE 'x", "UPDATE t WHERE a = 1"]
        {
            let error = parse(text).expect_err(text);
            assert_eq!(error.message, format!("Statement wasn't well formed, can't be processed: {text}"));
        }
        let refused = |text: &str| parse(text).expect_err(text).message;
        for text in
            ["SELECT * FROM t WHERE pk = 1 foo", "DELETE FROM t WHERE pk = 1 ORDER BY pk", "INSERT INTO t x VALUE {}"]
        {
            assert_eq!(refused(text), LEFTOVER, "{text}");
        }
        for text in ["DELETE FROM t extra", "SELECT * FROM t AS x", "UPDATE t x SET a = 1"] {
            assert_eq!(refused(text), "Aliasing is not supported", "{text}");
        }
        for text in
            ["SELECT * FROM t WHERE pk = 1 # c", "SELECT * FROM t /* c", "SELECT * FROM t WHERE pk = 1e2147483648"]
        {
            assert_eq!(refused(text), "Statement wasn't well formed, can't be processed: ", "{text}");
        }
        let (commented, _) = parse("SELECT * -- all\nFROM /* the table */ t").expect("comments are skipped");
        assert!(matches!(commented, Statement::Select { .. }));
        let deep = format!("SELECT * FROM t WHERE {}a = 1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(parse(&deep).is_err());
    }
}
