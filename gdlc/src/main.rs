//! The `gdlc` command: check, format, simulate, compile and play GDL game descriptions.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// A compiler from the Game Description Language (GDL) to fast native Rust.
#[derive(Parser, Debug)]
#[command(name = "gdlc", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check game descriptions: syntax, GDL restrictions, safety, stratification.
    Check(cli::check::Args),
    /// Explain a diagnostic code (e.g. `gdlc explain unsafe-variable`), or list them all.
    Explain(cli::explain::Args),
    /// Reformat a description, or convert it between prefix (KIF) and infix syntax.
    Fmt(cli::fmt::Args),
    /// Run the language server (LSP over standard input and output) for editors.
    Lsp(cli::lsp::Args),
    /// Play one seeded random playout and print it in the reference trace format.
    Trace(cli::trace::Args),
    /// Print one stage of the compiler: ast, strata, ground, ir or rust.
    Dump(cli::dump::Args),
    /// Print the Rust module compiled from a description.
    Emit(cli::emit::Args),
    /// Write a standalone cargo crate for a compiled game (a library, and a binary that
    /// simulates the game and plays it as a GGP player).
    Build(cli::build::Args),
    /// Time random playouts (from the initial state, uniformly random legal moves for every role
    /// until the end) on the interpreter or the compiled game; prints one line.
    Bench(cli::bench::Args),
    /// Explore a game's reachable states for what makes it ill-formed (no legal move, missing
    /// goals, cycles, unwinnable roles), each finding with the moves that show it.
    Validate(cli::validate::Args),
    /// Play matches over HTTP (the GGP protocol): any game a manager sends, or only FILE.
    Play(Box<cli::play::Args>),
    /// Run one match (a game manager): players in role order, remote (HOST:PORT), in this
    /// process (random, mcts) or you (human); writes the ggp.org match record with --out.
    Match(cli::manager::Args),
    /// Run N matches between the same players, rotating the roles, and print a score table.
    Tournament(cli::tournament::Args),
}

/// The system's allocator, with huge pages for large tables (see `gdlc::alloc`).
#[global_allocator]
static ALLOC: gdlc::alloc::CompilerAlloc = gdlc::alloc::CompilerAlloc;

fn main() -> ExitCode {
    gdlc::alloc::tune();
    // Diagnostics of the engines, e.g. `GDLC_LOG=gdlc=trace gdlc trace game.kif`.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("GDLC_LOG"))
        .with_writer(std::io::stderr)
        .init();
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
        Command::Check(args) => cli::check::run(args),
        Command::Explain(args) => cli::explain::run(args),
        Command::Fmt(args) => cli::fmt::run(args),
        Command::Lsp(args) => cli::lsp::run(args),
        Command::Trace(args) => cli::trace::run(args),
        Command::Dump(args) => cli::dump::run(args),
        Command::Emit(args) => cli::emit::run(args),
        Command::Build(args) => cli::build::run(args),
        Command::Bench(args) => cli::bench::run(args),
        Command::Validate(args) => cli::validate::run(args),
        Command::Play(args) => cli::play::run(*args),
        Command::Match(args) => cli::manager::run(args),
        Command::Tournament(args) => cli::tournament::run(args),
    }
}
