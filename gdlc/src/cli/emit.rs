//! `gdlc emit`: prints the Rust module compiled from a description.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gdlc::CompileOptions;
use gdlc::diag::{RenderOptions, SourceFile};

/// The arguments of `gdlc emit`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game description (KIF).
    pub file: PathBuf,
    /// The name of the game struct (default: from the file name, `ticTacToe` -> `TicTacToe`).
    #[arg(long)]
    pub type_name: Option<String>,
    /// Print pass times and sizes on standard error.
    #[arg(long)]
    pub stats: bool,
}

/// The compile options for a description file: type name from its stem.
pub fn options_for(file: &Path) -> CompileOptions {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    CompileOptions::for_game(&stem)
}

/// Prints the errors of a failed compilation; returns exit code 1.
pub fn report_errors(name: &str, source: &str, errors: &[gdlc::Diagnostic]) -> ExitCode {
    let file = SourceFile { name, text: source };
    for d in errors {
        eprint!(
            "{}",
            gdlc::diag::render(file, d, RenderOptions { color: false })
        );
    }
    ExitCode::from(1)
}

pub fn run(args: Args) -> ExitCode {
    let source = match super::read_source(&args.file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let name = args.file.display().to_string();
    let mut options = options_for(&args.file);
    if let Some(t) = args.type_name {
        options.codegen.type_name = t;
    }
    match gdlc::compile(&source, &options) {
        Ok(c) => {
            print!("{}", c.rust);
            if args.stats {
                for (pass, t) in &c.stats.timings {
                    eprintln!("{pass}: {:.3}s", t.as_secs_f64());
                }
                eprintln!("ground: {:?}", c.stats.ground);
                eprintln!("ir lowered: {:?}", c.stats.ir_lowered);
                eprintln!("ir optimised: {:?}", c.stats.ir);
                eprintln!("rust: {} bytes", c.stats.rust_bytes);
            }
            ExitCode::SUCCESS
        }
        Err(errors) => report_errors(&name, &source, &errors),
    }
}
