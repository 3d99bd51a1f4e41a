//! `gdlc explain`: what a diagnostic code means, with an example (as `rustc --explain`).

use std::process::ExitCode;

use gdlc::diag::codes;

use super::EXIT_USAGE;

/// The arguments of `gdlc explain`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A diagnostic code, as shown in brackets after `error` or `warning` (e.g.
    /// `unsafe-variable`); without it, every code is listed.
    pub code: Option<String>,
}

pub fn run(args: Args) -> ExitCode {
    let Some(name) = args.code else {
        for code in codes::ALL {
            let first = code.explanation.split(". ").next().unwrap_or_default();
            println!("{:<24} {}", code.name, first.trim_end_matches('.'));
        }
        return ExitCode::SUCCESS;
    };
    let name = name.trim().trim_start_matches('[').trim_end_matches(']');
    match codes::lookup(name) {
        Some(code) => {
            print!("{}", codes::explain(code));
            ExitCode::SUCCESS
        }
        None => {
            eprintln!(
                "error: `{name}` is not a diagnostic code of gdlc (`gdlc explain` lists them)"
            );
            ExitCode::from(EXIT_USAGE)
        }
    }
}
