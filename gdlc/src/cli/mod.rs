//! The sub-commands of `gdlc`, and what they share: reading a description through the
//! library's front end ([`Loaded`]), reporting its diagnostics, the code generator's options
//! ([`CodegenArgs`]) and writing to standard output ([`print_out`]). All file I/O of the
//! project's compiler lives here, not in the library.

pub mod bench;
pub mod build;
pub mod cache;
pub mod check;
pub mod dump;
pub mod emit;
pub mod explain;
pub mod fmt;
pub mod lsp;
pub mod manager;
pub mod play;
pub mod progress;
pub mod tournament;
pub mod trace;
pub mod universal;
pub mod validate;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gdlc::codegen::Backend;
use gdlc::diag::{ReportOptions, Reporter, SourceFile};
use gdlc::interp::Limits;
use gdlc::{CheckOptions, CompileOptions, Compiled, Diagnostic, Source};

/// Exit code for usage and I/O problems.
pub const EXIT_USAGE: u8 = 2;

/// Reads a `--seconds` value: a finite, non-negative number of seconds (below 1e9), so that
/// a clock built from it cannot overflow. Shared by every command that plays for a time.
pub fn seconds_value(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..1e9).contains(&s) => Ok(s),
        _ => Err("a non-negative number of seconds (below 1e9)".to_string()),
    }
}

/// The name standard input (`-`) is reported under without `--stdin-name`.
pub const STDIN_NAME: &str = "<stdin>";

/// Exit code when a description has errors (or a game cannot be played).
pub const EXIT_ERRORS: u8 = 1;

/// A description read from a file: the name it is reported under (the path as given) and its
/// text. Its syntax (KIF or infix) is the library's business ([`gdlc::Syntax::of`]).
pub struct Loaded {
    pub path: PathBuf,
    pub name: String,
    pub text: String,
    /// Whether a rejected description is also told as one JSON object on standard output
    /// (`gdlc validate --json`, for tools): `{"game", "rejected": [{"code", "severity",
    /// "message"}], "exit_status": 1}`, the diagnostics in their order.
    pub json_rejection: bool,
}

impl Loaded {
    /// Reads a description file; invalid UTF-8 (a Latin-1 comment, say) is replaced, not fatal.
    /// An unreadable file is reported and gives exit code 2.
    pub fn read(path: &Path) -> Result<Loaded, ExitCode> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(Loaded {
                path: path.to_path_buf(),
                name: path.display().to_string(),
                text: match String::from_utf8(bytes) {
                    Ok(s) => s,
                    Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                },
                json_rejection: false,
            }),
            Err(e) => {
                eprintln!("gdlc: cannot read {}: {e}", path.display());
                Err(ExitCode::from(EXIT_USAGE))
            }
        }
    }

    /// [`Loaded::read`], or standard input when `path` is `-`, reported under `stdin_name`
    /// (whose extension also gives the syntax, as a file's does; [`STDIN_NAME`] by default).
    pub fn read_or_stdin(path: &Path, stdin_name: Option<&str>) -> Result<Loaded, ExitCode> {
        if path != Path::new("-") {
            return Loaded::read(path);
        }
        let mut bytes = Vec::new();
        if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes) {
            eprintln!("gdlc: cannot read standard input: {e}");
            return Err(ExitCode::from(EXIT_USAGE));
        }
        let name = stdin_name.unwrap_or(STDIN_NAME).to_string();
        Ok(Loaded {
            path: PathBuf::from(&name),
            name,
            text: match String::from_utf8(bytes) {
                Ok(s) => s,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            },
            json_rejection: false,
        })
    }

    /// The description as the library's front end takes it.
    pub fn source(&self) -> Source<'_> {
        Source::new(&self.name, &self.text)
    }

    /// The file stem (`ticTacToe` of `games/ticTacToe.kif`).
    pub fn stem(&self) -> String {
        cache::stem_of(&self.path)
    }

    /// Prints `diagnostics` on standard error with their source snippets; returns exit code 1.
    pub fn report(&self, diagnostics: &[Diagnostic]) -> ExitCode {
        self.print(diagnostics);
        if self.json_rejection {
            let rejected: Vec<serde_json::Value> = diagnostics
                .iter()
                .map(|d| {
                    let severity = if d.is_error() { "error" } else { "warning" };
                    serde_json::json!({"code": d.code, "severity": severity, "message": d.message})
                })
                .collect();
            let object = serde_json::json!({
                "game": self.stem(),
                "rejected": rejected,
                "exit_status": EXIT_ERRORS,
            });
            let _ = writeln!(std::io::stdout().lock(), "{object}");
        }
        ExitCode::from(EXIT_ERRORS)
    }

    /// Prints `diagnostics` on standard error with their source snippets.
    fn print(&self, diagnostics: &[Diagnostic]) {
        let file = SourceFile {
            name: &self.name,
            text: &self.text,
        };
        let options = ReportOptions {
            color: std::io::stderr().is_terminal(),
            ..ReportOptions::default()
        };
        let text = Reporter::new(file, options).render_all(diagnostics);
        // A closed standard error is no reason to fail differently.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    /// The reference interpreter for this description: read and checked by the front end (a
    /// description the checker rejects is reported, exit code 1).
    pub fn interpreter(&self, limits: &LimitArgs) -> Result<gdlc::interp::Interpreter, ExitCode> {
        gdlc::frontend::load(self.source(), &CheckOptions::default())
            .and_then(|checked| gdlc::interp::Interpreter::from_checked(&checked, limits.limits()))
            .map_err(|errors| self.report(&errors))
    }

    /// Compiles this description with `options`, showing its progress and timings on standard
    /// error as `shown` says; errors are reported (exit code 1), warnings printed.
    pub fn compile(&self, options: &CompileOptions, shown: Shown) -> Result<Compiled, ExitCode> {
        let bar = progress::CompileProgress::new(&self.stem(), shown.progress);
        let mut options = options.clone();
        bar.attach(&mut options);
        let compiled = gdlc::compile(self.source(), &options);
        bar.finish();
        let compiled = compiled.map_err(|errors| self.report(&errors))?;
        // Warnings, as a compiler gives them: the checker's, why the interpreter was
        // embedded, code too long for rustc.
        self.print(&compiled.warnings);
        if shown.timings {
            eprint!("{}", progress::timings_text(&self.name, &compiled));
        }
        Ok(compiled)
    }
}

/// How a compilation is shown on standard error.
#[derive(Clone, Copy, Debug)]
pub struct Shown {
    /// The progress bar (drawn only on a terminal).
    pub progress: progress::Show,
    /// `--timings`: the time of each pass and the peak memory, once compiled.
    pub timings: bool,
}

impl Default for Shown {
    fn default() -> Self {
        Shown {
            progress: progress::Show::OnTerminal,
            timings: false,
        }
    }
}

/// The interpreter's budget on the command line (`trace`, `bench`): a query past it stops the
/// run with an error naming the rule.
#[derive(clap::Args, Debug, Clone)]
pub struct LimitArgs {
    /// The interpreter's step budget: the candidate rows one query may visit.
    #[arg(long, value_name = "ROWS", default_value_t = Limits::default().max_query_steps)]
    pub max_query_steps: u64,
    /// The interpreter's memory budget: the ground terms it may hold.
    #[arg(long, value_name = "TERMS", default_value_t = Limits::default().max_terms)]
    pub max_terms: usize,
    /// The interpreter's memory budget: the cells (rows times arity) of one relation.
    #[arg(long, value_name = "CELLS", default_value_t = Limits::default().max_relation_cells)]
    pub max_relation_cells: usize,
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        Limits {
            max_query_steps: self.max_query_steps,
            max_terms: self.max_terms,
            max_relation_cells: self.max_relation_cells,
        }
    }
}

/// The code generator's options on the command line (`emit`, `dump`, `build`, `trace`,
/// `bench`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CodegenArgs {
    /// How the generated code computes the game: `inline` is straight-line Rust per output,
    /// `propnet` the circuit as tables for gdl-propnet's incremental engine, `auto` whichever
    /// the cost model expects to be faster (rules evaluated at run time need `propnet`).
    #[arg(long, value_name = "auto|inline|propnet", default_value = "auto", value_parser = parse_backend)]
    pub backend: Backend,
    /// Print the time of each compiler pass and gdlc's peak memory on standard error (and the
    /// time of cargo when it builds the game).
    #[arg(long)]
    pub timings: bool,
}

/// `--backend NAME`: one of [`Backend::name`].
fn parse_backend(name: &str) -> Result<Backend, String> {
    Backend::from_name(name).ok_or_else(|| format!("`{name}`: expected auto, inline or propnet"))
}

/// The compile options for a description file: type name from its stem, the code generator's
/// options from the command line.
pub fn options_for(file: &Path, codegen: &CodegenArgs) -> CompileOptions {
    let mut options = CompileOptions::for_game(&cache::stem_of(file));
    if let Some(name) = file.file_name() {
        options.codegen.source_name = name.to_string_lossy().into_owned();
    }
    options.codegen.backend = codegen.backend;
    options
}

/// Writes `text` on standard output. A reader that went away (`gdlc emit big.kif | head`) ends
/// the command quietly with exit code 0; another write error is reported (exit code 2).
pub fn print_out(text: &str) -> Result<(), ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) => Err(output_error(&e)),
    }
}

/// The exit code for a failed write on standard output: 0, silently, when the reader closed
/// the pipe; 2 with a message otherwise.
pub fn output_error(e: &std::io::Error) -> ExitCode {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        ExitCode::SUCCESS
    } else {
        eprintln!("gdlc: cannot write the output: {e}");
        ExitCode::from(EXIT_USAGE)
    }
}

/// [`print_out`] as the last step of a command.
pub fn finish_out(text: &str) -> ExitCode {
    match print_out(text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// Writes `bytes` to `path` through a temporary file beside it and a rename, so that `path`
/// holds either its old contents or all of the new ones, never a part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().map_or_else(
        || std::ffi::OsString::from("out"),
        std::ffi::OsStr::to_os_string,
    );
    let mut partial = name;
    partial.push(format!(".partial-{}", std::process::id()));
    let partial = path.with_file_name(partial);
    let written = std::fs::write(&partial, bytes).and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}
