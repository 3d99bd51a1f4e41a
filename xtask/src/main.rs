//! Project tasks, run as `cargo xtask <task>` (an alias in `.cargo/config.toml` for
//! `cargo run --package xtask --release --`):
//!
//! - `corpus`: compiles every game of the corpus and checks it: the seed-1 reference trace
//!   where one exists, and N seeded playouts against the interpreter. Prints a table and a
//!   summary; `--out REPORT.md` writes them as Markdown. See [`corpus`].
//! - `bench`: the benchmark loop of `gdl_tools::bench` on the compiled and the interpreted
//!   engine of a set of games, with compile times and peak memory; `--out BENCHMARKS.md`
//!   writes the table. See [`mod@bench`].
//! - `validate`: `gdlc validate` on every game of the corpus; `--out VALIDATION.md` writes the
//!   table of modes, states and findings. See [`validate`].
//! - `strength`: two player variants against each other with `gdlc tournament` on a set of
//!   games (W-D-L, score, Elo with intervals); `--out BENCHMARKS.md` writes its section. See
//!   [`strength`].
//!
//! The corpus is read from `$GDL_CORPUS` (default `../shared` beside the repository). Scratch
//! crates go under `target/gdlc-scratch/`. Every compilation, build and playout runs in a child
//! process with a time limit and an address-space limit, so that one game that is too large
//! cannot take the whole run down.

mod bench;
mod common;
mod corpus;
mod strength;
mod validate;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Project tasks of the gdlc workspace.
#[derive(Parser, Debug)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand, Debug)]
enum Task {
    /// Compile and check every game of the corpus (reference traces, differential playouts
    /// against the interpreter); print a table and a summary.
    Corpus(corpus::Args),
    /// Benchmark the compiled and the interpreted engine on a set of games (default: the CI
    /// set); print a Markdown table.
    Bench(bench::Args),
    /// Validate every game of the corpus with `gdlc validate` (exhaustive or sampled); print
    /// a Markdown table of the findings.
    Validate(validate::Args),
    /// Two player variants against each other at equal time per move on a set of corpus games
    /// (real HTTP players, `gdlc tournament`): W-D-L, score and Elo difference with their
    /// intervals per game; `--out BENCHMARKS.md` writes its "Strength" section.
    Strength(strength::Args),
    /// (internal) Compile one description; write the module to OUT and print
    /// `type=T rust_bytes=N gdlc_seconds=S backend=B`.
    #[command(hide = true)]
    CompileOne {
        kif: PathBuf,
        out: PathBuf,
        /// auto, inline or propnet.
        #[arg(long, default_value = "auto")]
        backend: String,
    },
    /// (internal) Run the interpreter's side of a game binary's command line
    /// (`trace`, `traces`, `bench`; see gdl_tools::cli).
    #[command(hide = true)]
    Play {
        kif: PathBuf,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// The `gdlc` command's allocator (huge pages for large tables, see `gdlc::alloc`), so that
/// the children that compile one game each measure the command's compile times.
#[global_allocator]
static ALLOC: gdlc::alloc::CompilerAlloc = gdlc::alloc::CompilerAlloc;

fn main() -> ExitCode {
    gdlc::alloc::tune();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Task::Corpus(args) => corpus::run(args),
        Task::Bench(args) => bench::run(args),
        Task::Validate(args) => validate::run(args),
        Task::Strength(args) => strength::run(args),
        Task::CompileOne { kif, out, backend } => match gdlc::codegen::Backend::from_name(&backend)
        {
            Some(b) => common::compile_one(&kif, &out, b),
            None => {
                eprintln!("error: unknown backend `{backend}` (auto, inline or propnet)");
                ExitCode::from(2)
            }
        },
        Task::Play { kif, args } => common::play(&kif, &args),
    }
}
