//! `dynalab export FILE --out DIR`: the design any file holds, written as the files a team
//! deploys (the lab's [`dynalab_lab::export`]); what the formats could not carry, said.

use dynalab_lab::workbook::import::{import_with, Options, Source};
use std::path::Path;
use std::process::ExitCode;

pub fn run(file: &Path, out: &Path, options: &Options) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("dynalab: {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let imported = match import_with(&text, options) {
        Ok(imported) => imported,
        Err(problem) => {
            for line in problem.lines() {
                eprintln!("dynalab: {}: {line}", file.display());
            }
            eprintln!("dynalab: {}: nothing was exported", file.display());
            return ExitCode::from(2);
        }
    };
    if imported.source != Source::Workbook {
        eprintln!("dynalab: read {} as {}", file.display(), imported.source.describe());
    }
    for note in &imported.notes {
        eprintln!("dynalab: {note}");
    }
    if imported.workbook.tables.is_empty() {
        eprintln!("dynalab: {}: the design holds no table: nothing was exported", file.display());
        return ExitCode::from(2);
    }
    let exported = dynalab_lab::export::export(&imported.workbook);
    for (name, contents) in &exported.files {
        let path = out.join(name);
        let written =
            path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&path, contents));
        if let Err(e) = written {
            eprintln!("dynalab: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
        crate::stdout(&format!("{}\n", path.display()));
    }
    for note in &exported.notes {
        eprintln!("dynalab: to finish by hand: {note}");
    }
    ExitCode::SUCCESS
}
