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
    #[command(flatten)]
    pub codegen: CodegenArgs,
}

/// The code generator's options on the command line (`emit`, `dump`, `build`, `trace`,
/// `bench`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CodegenArgs {
    /// How the generated code computes the game: `inline` is straight-line Rust per output,
    /// `propnet` the circuit as tables for gdl-runtime's incremental engine, `auto` whichever
    /// the cost model expects to be faster (rules evaluated at run time need `propnet`).
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
}

/// [`gdlc::codegen::Backend`] as a command-line value.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendArg {
    #[default]
    Auto,
    Inline,
    Propnet,
}

impl From<BackendArg> for gdlc::codegen::Backend {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Auto => gdlc::codegen::Backend::Auto,
            BackendArg::Inline => gdlc::codegen::Backend::Inline,
            BackendArg::Propnet => gdlc::codegen::Backend::Propnet,
        }
    }
}

/// The compile options for a description file: type name from its stem, the code generator's
/// options from the command line.
pub fn options_for(file: &Path, codegen: &CodegenArgs) -> CompileOptions {
    let mut options = CompileOptions::for_game(&super::cache::stem_of(file));
    options.codegen.backend = codegen.backend.into();
    options
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
    let mut options = options_for(&args.file, &args.codegen);
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
