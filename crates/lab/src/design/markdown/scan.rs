//! The parts of a Markdown document a design is read from: headings, `**Label:** text` lines, and
//! tables — pipe tables, or rows of tab-separated cells as a spreadsheet or the method's plain
//! text pastes them — each with the line it starts on.

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Heading { line: usize, level: usize, text: String },
    Remark { line: usize, label: String, text: String },
    Table(Grid),
    Text { line: usize, text: String },
}

/// A table: its header and rows of cells, each row with its line number.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub line: usize,
    pub header: Vec<String>,
    pub rows: Vec<(usize, Vec<String>)>,
}

impl Grid {
    /// The column whose header is one of `names` (compared without case, spaces or punctuation).
    pub fn column(&self, names: &[&str]) -> Option<usize> {
        self.header.iter().position(|h| names.iter().any(|n| squash(h) == squash(n)))
    }

    /// The first column whose header contains one of `words`.
    pub fn column_containing(&self, words: &[&str]) -> Option<usize> {
        self.header.iter().position(|h| words.iter().any(|w| squash(h).contains(&squash(w))))
    }
}

/// Lower case, letters and digits only: `Rate (peak/s)` → `ratepeaks`.
pub fn squash(text: &str) -> String {
    text.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

pub fn scan(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        let number = i + 1;
        if line.starts_with('|') {
            let start = i;
            while i < lines.len() && lines[i].trim().starts_with('|') {
                i += 1;
            }
            blocks.push(Block::Table(pipe_table(&lines[start..i], number)));
            continue;
        }
        if line.contains('\t') && lines.get(i + 1).is_some_and(|next| next.contains('\t')) {
            let start = i;
            while i < lines.len() && lines[i].contains('\t') {
                i += 1;
            }
            blocks.push(Block::Table(tab_table(&lines[start..i], number)));
            continue;
        }
        i += 1;
        if line.is_empty() {
            continue;
        }
        if let Some(heading) = heading(line) {
            blocks.push(Block::Heading { line: number, level: heading.0, text: heading.1.to_string() });
        } else if let Some((label, rest)) = remark(line) {
            blocks.push(Block::Remark { line: number, label, text: rest });
        } else if let Some(Block::Text { text, .. }) =
            blocks.last_mut().filter(|_| !lines[i - 2].trim().is_empty() && i >= 2)
        {
            // A paragraph's lines are one text.
            text.push(' ');
            text.push_str(line);
        } else {
            blocks.push(Block::Text { line: number, text: line.to_string() });
        }
    }
    blocks
}

fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|c| *c == '#').count();
    let rest = &line[level..];
    (level > 0 && level <= 6 && rest.starts_with(' ')).then(|| (level, rest.trim()))
}

/// `**Write invariants:** text` (or `**Write invariants**: text`, or as a bullet: `- **Sort Key**: SK`).
fn remark(line: &str) -> Option<(String, String)> {
    let line = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")).unwrap_or(line).trim_start();
    let rest = line.strip_prefix("**")?;
    let end = rest.find("**")?;
    let label = rest[..end].trim().trim_end_matches(':').trim();
    let text = rest[end + 2..].trim().trim_start_matches(':').trim();
    (!label.is_empty()).then(|| (label.to_string(), text.to_string()))
}

fn pipe_table(lines: &[&str], first_line: usize) -> Grid {
    let mut rows: Vec<(usize, Vec<String>)> = Vec::new();
    for (offset, line) in lines.iter().enumerate() {
        let cells = pipe_cells(line);
        let separator = cells.iter().all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')));
        if offset == 1 && separator {
            continue;
        }
        rows.push((first_line + offset, cells));
    }
    let header = if rows.is_empty() { Vec::new() } else { rows.remove(0).1 };
    Grid { line: first_line, header, rows }
}

/// The cells of `| a | b |`, `\|` kept as a `|` inside a cell.
fn pipe_cells(line: &str) -> Vec<String> {
    let line = line.trim();
    let inner = line.strip_prefix('|').unwrap_or(line);
    let inner = if inner.ends_with('|') && !inner.ends_with("\\|") { &inner[..inner.len() - 1] } else { inner };
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    cells.push(cell.trim().to_string());
    cells
}

fn tab_table(lines: &[&str], first_line: usize) -> Grid {
    let mut rows: Vec<(usize, Vec<String>)> = lines
        .iter()
        .enumerate()
        .map(|(offset, line)| (first_line + offset, line.split('\t').map(|c| c.trim().to_string()).collect()))
        .collect();
    let header = rows.remove(0).1;
    Grid { line: first_line, header, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pipe_and_tab_tables_headings_and_remarks() {
        let text = "# Shop\n\n## Table: shop (on-demand)\n| # | Pattern |\n|---|---|\n| 1 | a \\| b |\n\n#\tPattern\n2\tc\n**Hot-key risk:** none\n";
        let blocks = scan(text);
        assert_eq!(blocks[0], Block::Heading { line: 1, level: 1, text: "Shop".into() });
        assert_eq!(blocks[1], Block::Heading { line: 3, level: 2, text: "Table: shop (on-demand)".into() });
        let Block::Table(pipes) = &blocks[2] else { panic!("a table: {blocks:?}") };
        assert_eq!(pipes.header, ["#", "Pattern"]);
        assert_eq!(pipes.rows, [(6, vec!["1".to_string(), "a | b".to_string()])]);
        let Block::Table(tabs) = &blocks[3] else { panic!("a tab table: {blocks:?}") };
        assert_eq!(tabs.line, 8);
        assert_eq!(tabs.rows, [(9, vec!["2".to_string(), "c".to_string()])]);
        assert_eq!(blocks[4], Block::Remark { line: 10, label: "Hot-key risk".into(), text: "none".into() });
        assert_eq!(pipes.column_containing(&["pattern"]), Some(1));
    }
}
