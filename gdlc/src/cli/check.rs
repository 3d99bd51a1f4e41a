//! `gdlc check`.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Game description files.
    pub files: Vec<PathBuf>,
}

pub fn run(args: Args) -> ExitCode {
    eprintln!("gdlc check: not available yet ({} files)", args.files.len());
    ExitCode::from(super::EXIT_USAGE)
}
