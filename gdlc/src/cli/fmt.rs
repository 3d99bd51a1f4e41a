//! `gdlc fmt`: reformat a description, or convert it between prefix (KIF) and infix syntax.
//!
//! The input syntax comes from `--from`, else from the file extension (`.kif`, `.gdl`: prefix;
//! `.hrf`, `.gdli`, `.infix`: infix), else from the content (prefix if the first token after
//! comments is `(`). The output syntax is `--to`, by default the input's. On a syntax error every
//! diagnostic is printed and nothing is written (exit 1); usage and I/O problems exit 2.
//! Comments are not kept.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gdlc::diag::{self, RenderOptions, SourceFile};
use gdlc::{infix, parse, print};

/// Exit code when the description has syntax errors.
const EXIT_ERRORS: u8 = 1;

#[derive(clap::Args, Debug)]
/// The arguments of `gdlc fmt`.
pub struct Args {
    /// The game description to format.
    pub file: PathBuf,
    /// The syntax to write [default: the syntax of the input].
    #[arg(long, value_enum)]
    pub to: Option<Syntax>,
    /// The syntax of the input [default: from the file extension, else from the content].
    #[arg(long, value_enum)]
    pub from: Option<Syntax>,
    /// Write to OUT instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// The two syntaxes of GDL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Syntax {
    /// KIF: `(<= (q ?y) (p a ?y))`.
    #[value(alias = "kif")]
    Prefix,
    /// Infix ("HRF"): `q(Y) :- p(a,Y)`.
    #[value(alias = "hrf")]
    Infix,
}

/// The syntax of a file: from its extension if known, else from its first token.
pub fn detect(path: &Path, text: &str) -> Syntax {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("kif" | "gdl") => return Syntax::Prefix,
        Some("hrf" | "gdli" | "infix") => return Syntax::Infix,
        _ => {}
    }
    let mut rest = text.trim_start();
    while let Some(comment) = ["%", ";", "//"].iter().find(|c| rest.starts_with(**c)) {
        let after = &rest[comment.len()..];
        rest = after.find('\n').map_or("", |i| after[i..].trim_start());
    }
    if rest.is_empty() || rest.starts_with('(') {
        Syntax::Prefix
    } else {
        Syntax::Infix
    }
}

/// Runs `gdlc fmt`: exit 0 when written, 1 on syntax errors, 2 on usage or I/O problems.
pub fn run(args: Args) -> ExitCode {
    let text = match super::read_source(&args.file) {
        Ok(text) => text,
        Err(code) => return code,
    };
    let from = args.from.unwrap_or_else(|| detect(&args.file, &text));
    let (program, diags) = match from {
        Syntax::Prefix => parse::parse_kif(&text),
        Syntax::Infix => infix::parse_infix(&text),
    };
    let name = args.file.display().to_string();
    let file = SourceFile {
        name: &name,
        text: &text,
    };
    let options = RenderOptions {
        color: std::io::stderr().is_terminal(),
    };
    let capped = diag::cap(&diags, diag::DEFAULT_CAP);
    for d in capped.shown {
        eprint!("{}", diag::render(file, d, options));
    }
    if let Some(more) = capped.more_line() {
        eprintln!("{name}: {more}");
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        eprintln!("gdlc fmt: {name}: {errors} syntax error(s); nothing written");
        return ExitCode::from(EXIT_ERRORS);
    }
    let out = match args.to.unwrap_or(from) {
        Syntax::Prefix => print::pretty_kif(&program),
        Syntax::Infix => print::pretty_infix(&program),
    };
    let written = match &args.output {
        Some(path) => std::fs::write(path, &out).map_err(|e| (path.display().to_string(), e)),
        None => std::io::stdout()
            .write_all(out.as_bytes())
            .map_err(|e| ("stdout".into(), e)),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err((target, e)) => {
            eprintln!("gdlc fmt: cannot write {target}: {e}");
            ExitCode::from(super::EXIT_USAGE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_comes_from_the_extension_then_the_content() {
        assert_eq!(detect(Path::new("g.KIF"), "p(a)"), Syntax::Prefix);
        assert_eq!(detect(Path::new("g.hrf"), "(p a)"), Syntax::Infix);
        assert_eq!(
            detect(Path::new("g.txt"), "; c\n  (role x)"),
            Syntax::Prefix
        );
        assert_eq!(
            detect(Path::new("g"), "% c (x\n// d\nrole(x)"),
            Syntax::Infix
        );
        assert_eq!(detect(Path::new("g"), "  "), Syntax::Prefix);
    }
}
