//! `gdlc fmt`: reformat a description, or convert it between prefix (KIF) and infix syntax.
//!
//! The input syntax comes from `--from`, else from the file extension (`.kif`, `.gdl`: prefix;
//! `.hrf`, `.gdli`, `.infix`: infix), else from the content (prefix if the first token after
//! comments is `(`). The output syntax is `--to`, by default the input's. On a syntax error every
//! diagnostic is printed and nothing is written (exit 1); usage and I/O problems exit 2.
//! Comments are kept (see `gdlc::print` for where they go). `-` reads standard input, reported
//! under `--stdin-name` (whose extension also gives the syntax).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use gdlc::diag::{ReportOptions, Reporter, SourceFile};
use gdlc::{Syntax, print};

/// Exit code when the description has syntax errors.
const EXIT_ERRORS: u8 = 1;

#[derive(clap::Args, Debug)]
/// The arguments of `gdlc fmt`.
pub struct Args {
    /// The game description to format; `-` reads standard input.
    pub file: PathBuf,
    /// The name standard input (`-`) is reported under; its extension gives the syntax as a
    /// file's does.
    #[arg(long, value_name = "NAME")]
    pub stdin_name: Option<String>,
    /// The syntax to write [default: the syntax of the input].
    #[arg(long, value_name = "prefix|infix", value_parser = parse_syntax)]
    pub to: Option<Syntax>,
    /// The syntax of the input [default: from the file extension, else from the content].
    #[arg(long, value_name = "prefix|infix", value_parser = parse_syntax)]
    pub from: Option<Syntax>,
    /// Write to OUT instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// `--to` / `--from`: `prefix` (or `kif`) and `infix` (or `hrf`).
fn parse_syntax(name: &str) -> Result<Syntax, String> {
    match name.to_ascii_lowercase().as_str() {
        "prefix" | "kif" => Ok(Syntax::Kif),
        "infix" | "hrf" => Ok(Syntax::Infix),
        _ => Err(format!("`{name}`: expected prefix (kif) or infix (hrf)")),
    }
}

/// Runs `gdlc fmt`: exit 0 when written, 1 on syntax errors, 2 on usage or I/O problems.
pub fn run(args: Args) -> ExitCode {
    let loaded = match super::Loaded::read_or_stdin(&args.file, args.stdin_name.as_deref()) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let (name, text) = (&loaded.name, &loaded.text);
    let from = args.from.unwrap_or_else(|| loaded.source().syntax());
    let (program, diags) = from.parse(text);
    let file = SourceFile { name, text };
    let options = ReportOptions {
        color: std::io::stderr().is_terminal(),
        ..ReportOptions::default()
    };
    eprint!("{}", Reporter::new(file, options).render_all(&diags));
    let errors = diags.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        eprintln!("gdlc fmt: {name}: {errors} syntax error(s); nothing written");
        return ExitCode::from(EXIT_ERRORS);
    }
    let out = match args.to.unwrap_or(from) {
        Syntax::Kif => print::pretty_kif(&program),
        Syntax::Infix => print::pretty_infix(&program),
    };
    match &args.output {
        Some(path) => match super::write_atomically(path, out.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("gdlc fmt: cannot write {}: {e}", path.display());
                ExitCode::from(super::EXIT_USAGE)
            }
        },
        None => super::finish_out(&out),
    }
}
