//! `gdlc check`: parses and checks game descriptions, prints every diagnostic and a summary
//! line per file.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gdlc::Diagnostic;
use gdlc::diag::{self, OneLine, RenderOptions, SourceFile};

/// Exit code when some description has errors.
const EXIT_ERRORS: u8 = 1;

/// How diagnostics are printed.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// With the source snippet and labels.
    #[default]
    Human,
    /// One line each: `file:line:col: severity[code]: message`.
    Short,
}

/// Printed after the options by `gdlc check --help`.
const AFTER_HELP: &str = "Diagnostics are printed on standard error, one summary line per file on \
standard output (`game.kif: ok (3 warnings)`, `game.kif: 2 errors, 1 warning`).

Exit status: 0 when no file has errors (warnings are allowed), 1 when some file has errors, \
2 on usage or I/O problems (no file given, a file that cannot be read).";

/// The arguments of `gdlc check`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// Game description files (KIF).
    pub files: Vec<PathBuf>,
    /// Print only errors: no warnings, no summary for files without errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// The outcome for one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Clean,
    Errors,
    Unreadable,
}

/// Runs `gdlc check`: checks every file, then exits 0, 1 (errors) or 2 (usage, I/O).
pub fn run(args: Args) -> ExitCode {
    if args.files.is_empty() {
        eprintln!("gdlc check: no files given (usage: gdlc check FILE...)");
        return ExitCode::from(super::EXIT_USAGE);
    }
    let outcomes: Vec<Outcome> = args.files.iter().map(|f| check_file(f, &args)).collect();
    if outcomes.contains(&Outcome::Unreadable) {
        ExitCode::from(super::EXIT_USAGE)
    } else if outcomes.contains(&Outcome::Errors) {
        ExitCode::from(EXIT_ERRORS)
    } else {
        ExitCode::SUCCESS
    }
}

fn check_file(path: &Path, args: &Args) -> Outcome {
    let Ok(text) = super::read_source(path) else {
        return Outcome::Unreadable;
    };
    let name = path.display().to_string();
    let diagnostics = diagnostics_of(path, &text);
    let file = SourceFile {
        name: &name,
        text: &text,
    };
    let options = RenderOptions {
        color: std::io::stderr().is_terminal(),
    };
    let mut err = std::io::stderr().lock();
    let printed: Vec<Diagnostic> = if args.quiet {
        diagnostics
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect()
    } else {
        diagnostics.clone()
    };
    let capped = diag::cap(&printed, diag::DEFAULT_CAP);
    for d in capped.shown {
        // A closed standard error is no reason to fail the check itself.
        let _ = match args.format {
            Format::Human => write!(err, "{}", diag::render(file, d, options)),
            Format::Short => writeln!(err, "{}", OneLine(file, d)),
        };
    }
    if let Some(more) = capped.more_line() {
        let _ = writeln!(err, "{name}: {more}");
    }
    drop(err);
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    if errors > 0 || !args.quiet {
        println!("{name}: {}", summary(errors, warnings));
    }
    if errors > 0 {
        Outcome::Errors
    } else {
        Outcome::Clean
    }
}

/// The syntax diagnostics and the checker's, in source order.
fn diagnostics_of(path: &std::path::Path, text: &str) -> Vec<Diagnostic> {
    let (program, mut diagnostics) = super::parse_source(path, text);
    diagnostics.extend(gdlc::check(&program).diagnostics);
    diagnostics.sort_by_key(|d| d.span);
    diagnostics
}

/// `ok`, `ok (1 warning)`, `2 errors, 1 warning`.
fn summary(errors: usize, warnings: usize) -> String {
    let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (0, 0) => "ok".to_string(),
        (0, w) => format!("ok ({})", count(w, "warning")),
        (e, 0) => count(e, "error"),
        (e, w) => format!("{}, {}", count(e, "error"), count(w, "warning")),
    }
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn summaries() {
        assert_eq!(summary(0, 0), "ok");
        assert_eq!(summary(0, 3), "ok (3 warnings)");
        assert_eq!(summary(2, 1), "2 errors, 1 warning");
        assert_eq!(summary(1, 0), "1 error");
    }
}
