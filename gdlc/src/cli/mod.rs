//! The sub-commands of `gdlc`. All file I/O of the project's compiler lives here, not in the
//! library.

pub mod bench;
pub mod build;
pub mod cache;
pub mod check;
pub mod dump;
pub mod emit;
pub mod fmt;
pub mod trace;

use std::path::Path;
use std::process::ExitCode;

/// Exit code for usage and I/O problems.
pub const EXIT_USAGE: u8 = 2;

/// Reads a description file; invalid UTF-8 (a Latin-1 comment, say) is replaced, not fatal.
pub fn read_source(path: &Path) -> Result<String, ExitCode> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }),
        Err(e) => {
            eprintln!("gdlc: cannot read {}: {e}", path.display());
            Err(ExitCode::from(EXIT_USAGE))
        }
    }
}

/// Parses a description and prepares the interpreter; prints the errors and returns exit code
/// 1 when the description has any.
pub fn load_interpreter(name: &str, source: &str) -> Result<gdlc::interp::Interpreter, ExitCode> {
    let (program, diags) = parse_source(Path::new(name), source);
    let file = gdlc::diag::SourceFile { name, text: source };
    let options = gdlc::diag::RenderOptions { color: false };
    let print = |diags: &[gdlc::Diagnostic]| {
        let capped = gdlc::diag::cap(diags, gdlc::diag::DEFAULT_CAP);
        for d in capped.shown {
            eprint!("{}", gdlc::diag::render(file, d, options));
        }
        if let Some(more) = capped.more_line() {
            eprintln!("{name}: {more}");
        }
    };
    let errors: Vec<_> = diags.into_iter().filter(|d| d.is_error()).collect();
    if !errors.is_empty() {
        print(&errors);
        return Err(ExitCode::from(1));
    }
    gdlc::interp::Interpreter::new(&program).map_err(|errs| {
        print(&errs);
        ExitCode::from(1)
    })
}

/// Parses a description in the syntax its file name or first token says (see
/// [`fmt::detect`]): KIF or infix.
pub fn parse_source(path: &Path, text: &str) -> (gdlc::Program, Vec<gdlc::Diagnostic>) {
    match fmt::detect(path, text) {
        fmt::Syntax::Prefix => gdlc::parse_kif(text),
        fmt::Syntax::Infix => gdlc::infix::parse_infix(text),
    }
}
