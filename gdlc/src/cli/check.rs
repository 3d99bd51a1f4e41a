//! `gdlc check`: parses and checks game descriptions, prints every diagnostic and a summary
//! line per file.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gdlc::diag::{ReportOptions, Reporter, SourceFile, Style};

use super::{EXIT_ERRORS, Loaded};

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
2 on usage or I/O problems (no file given, a file that cannot be read).

`-` reads standard input (`gdlc check - --stdin-name game.kif < game.kif`).";

/// The arguments of `gdlc check`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// Game description files (KIF or infix); `-` reads standard input.
    pub files: Vec<PathBuf>,
    /// The name standard input (`-`) is reported under; its extension gives the syntax as a
    /// file's does (without one, the first token: `(` is KIF).
    #[arg(long, value_name = "NAME")]
    pub stdin_name: Option<String>,
    /// Print only errors: no warnings, no summary for files without errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Print at most this many diagnostics per file; the others are counted.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_diagnostics: usize,
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
    let Ok(loaded) = Loaded::read_or_stdin(path, args.stdin_name.as_deref()) else {
        return Outcome::Unreadable;
    };
    let name = &loaded.name;
    // Syntax errors alone when the text does not parse; else every finding, in source order.
    let diagnostics =
        gdlc::frontend::analyse(loaded.source(), &gdlc::CheckOptions::default()).diagnostics;
    let file = SourceFile {
        name,
        text: &loaded.text,
    };
    let options = ReportOptions {
        style: match args.format {
            Format::Human => Style::Human,
            Format::Short => Style::Short,
        },
        color: std::io::stderr().is_terminal(),
        max_shown: args.max_diagnostics,
    };
    let shown = diagnostics.iter().filter(|d| d.is_error() || !args.quiet);
    let text = Reporter::new(file, options).render_all(shown);
    // A closed standard error is no reason to fail the check itself.
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    if (errors > 0 || !args.quiet)
        && super::print_out(&format!("{name}: {}\n", summary(errors, warnings))).is_err()
    {
        // The reader of the summaries went away; the outcome stands.
    }
    if errors > 0 {
        Outcome::Errors
    } else {
        Outcome::Clean
    }
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
