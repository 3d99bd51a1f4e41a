//! `cargo xtask corpus`: every game of the corpus compiled and checked.
//!
//! 1. Each description is compiled by a child process (`xtask compile-one`) under a time and
//!    an address-space limit. Games named `test_invalid_*` must be *rejected*: they pass when
//!    gdlc reports an error, and fail when it compiles them.
//! 2. The compiled modules go into batch crates of one scratch workspace
//!    (`target/gdlc-scratch/corpus`), at most `--batch-bytes` of Rust each; each batch is built
//!    by its own cargo run under the limits. A batch that fails is split: a rustc error is
//!    pinned on the modules it names, the others (and every game of a batch that timed out or
//!    ran out of memory) are built again one by one.
//! 3. Meanwhile the interpreter plays `--playouts` seeded playouts of every game (`xtask
//!    play`, a child under the limits).
//! 4. Each compiled game plays the same seeds; every playout is compared with the interpreter's
//!    step by step, and seed 1 with the reference trace where there is one.
//!
//! Every game ends in the table as `pass`, `rejected` (an invalid description, rejected as it
//! should be) or `FAIL` with its reason; no game is left out.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use gdl_tests::compiled::{
    self, Batch, CompiledGame, Limits, RunError, Scratch, compare_with_interpreter,
    compare_with_reference,
};
use gdl_tests::{CorpusGame, corpus_games};

use crate::common::{self, CompileFailure, pmap};

/// The arguments of `cargo xtask corpus`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only the games matching these comma-separated patterns: a collection's name, a
    /// `collection/name`, a substring of the name, or a glob with `*` and `?` against `name`
    /// or `collection/name` (`common::select`).
    #[arg(long, value_name = "PATTERN")]
    pub games: Option<String>,
    /// Parallel jobs (compilations, playouts; cargo builds one batch at a time with this many
    /// jobs).
    #[arg(long, default_value_t = 2)]
    pub jobs: usize,
    /// Seeded playouts per game compared with the interpreter (seeds 1 to N).
    #[arg(long, default_value_t = 100)]
    pub playouts: u64,
    /// Also write the table and the summary as Markdown to this file.
    #[arg(long, value_name = "REPORT.md")]
    pub out: Option<PathBuf>,
    /// Time limit of compiling one game with gdlc, in seconds.
    #[arg(long, default_value_t = 300)]
    pub compile_timeout: u64,
    /// Time limit of building one batch with cargo, in seconds.
    #[arg(long, default_value_t = 1200)]
    pub build_timeout: u64,
    /// Time limit of one engine's playouts of one game, in seconds.
    #[arg(long, default_value_t = 900)]
    pub play_timeout: u64,
    /// Address-space limit of every child process (gdlc, rustc, the games), in GiB.
    #[arg(long, default_value_t = 8.0)]
    pub memory_gb: f64,
    /// Bytes of generated Rust per batch crate.
    #[arg(long, default_value_t = 8_000_000)]
    pub batch_bytes: usize,
    /// opt-level of the batch crates (1 builds much faster than 3 and checks the same code).
    #[arg(long, default_value_t = 1)]
    pub opt_level: u8,
}

/// The outcome of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Status {
    Pass,
    /// An invalid description that gdlc rejected, as it should.
    Rejected,
    Fail(Reason, String),
}

/// Why a game failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reason {
    TooLargeToGround,
    GdlcError,
    GdlcTimeout,
    GdlcOutOfMemory,
    InvalidAccepted,
    RustcError,
    RustcTimeout,
    RustcOutOfMemory,
    BinaryFailed,
    InterpreterFailed,
    MismatchReference,
    MismatchInterpreter,
}

impl Reason {
    fn text(self) -> &'static str {
        match self {
            Reason::TooLargeToGround => "too large to ground",
            Reason::GdlcError => "gdlc error",
            Reason::GdlcTimeout => "gdlc timeout",
            Reason::GdlcOutOfMemory => "gdlc out of memory",
            Reason::InvalidAccepted => "invalid description accepted",
            Reason::RustcError => "rustc error",
            Reason::RustcTimeout => "rustc timeout",
            Reason::RustcOutOfMemory => "rustc out of memory",
            Reason::BinaryFailed => "compiled binary failed",
            Reason::InterpreterFailed => "interpreter failed (unchecked)",
            Reason::MismatchReference => "mismatch with the reference trace",
            Reason::MismatchInterpreter => "mismatch with the interpreter",
        }
    }
}

/// One game's row.
struct Row {
    game: CorpusGame,
    status: Status,
    rust_bytes: usize,
    gdlc_seconds: f64,
    /// Peak resident memory of gdlc, KiB.
    gdlc_peak_kib: u64,
    playouts: u64,
    states: u64,
}

pub fn run(args: Args) -> ExitCode {
    let started = Instant::now();
    let games = common::select(corpus_games(), args.games.as_deref());
    if games.is_empty() {
        eprintln!("no game matches {:?}", args.games);
        return ExitCode::from(2);
    }
    let limits = |secs: u64| Limits {
        timeout: Some(Duration::from_secs(secs)),
        memory_bytes: Some((args.memory_gb * (1u64 << 30) as f64) as u64),
    };
    let mut scratch = Scratch::in_target_dir(&common::target_dir(), "corpus");
    scratch.profile.opt_level = args.opt_level;
    let modules_dir = scratch.root.join("modules");
    if let Err(e) = std::fs::create_dir_all(&modules_dir) {
        eprintln!("cannot create {}: {e}", modules_dir.display());
        return ExitCode::from(2);
    }
    let load_before = common::load_average();
    let mut rows: Vec<Row> = games
        .iter()
        .map(|g| Row {
            game: g.clone(),
            status: Status::Pass,
            rust_bytes: 0,
            gdlc_seconds: 0.0,
            gdlc_peak_kib: 0,
            playouts: 0,
            states: 0,
        })
        .collect();

    // 1. Compile.
    let label = |g: &CorpusGame| format!("{}/{}", g.collection, g.name);
    let module_file = |g: &CorpusGame| modules_dir.join(format!("{}__{}.rs", g.collection, g.name));
    let compiled = pmap(&games, args.jobs, Some(("gdlc", &label)), |g| {
        common::compile_in_child(&g.kif, &module_file(g), &limits(args.compile_timeout))
    });
    let mut ok: Vec<CompiledGame> = Vec::new();
    let mut row_of_module: Vec<usize> = Vec::new();
    for (i, c) in compiled.into_iter().enumerate() {
        let invalid = games[i].name.starts_with("test_invalid_");
        let row = &mut rows[i];
        match c {
            Ok(c) if invalid => {
                row.rust_bytes = c.rust_bytes;
                row.status = Status::Fail(Reason::InvalidAccepted, "compiled".into());
            }
            Ok(c) => match std::fs::read_to_string(module_file(&games[i])) {
                Ok(rust) => {
                    row.rust_bytes = c.rust_bytes;
                    row.gdlc_seconds = c.gdlc_seconds;
                    row.gdlc_peak_kib = c.gdlc_peak_kib;
                    row_of_module.push(i);
                    ok.push(CompiledGame {
                        name: games[i].name.clone(),
                        type_name: c.type_name,
                        backend: gdlc::codegen::Backend::from_name(&c.backend).unwrap_or_default(),
                        rust,
                        compile_time: Duration::from_secs_f64(c.gdlc_seconds),
                    });
                }
                Err(e) => row.status = Status::Fail(Reason::GdlcError, e.to_string()),
            },
            Err(_) if invalid => row.status = Status::Rejected,
            Err(CompileFailure::TooLargeToGround(m)) => {
                row.status = Status::Fail(Reason::TooLargeToGround, m)
            }
            Err(CompileFailure::Error(m)) => row.status = Status::Fail(Reason::GdlcError, m),
            Err(CompileFailure::TimedOut(t)) => {
                row.status = Status::Fail(Reason::GdlcTimeout, format!("{} s", t.as_secs()))
            }
            Err(CompileFailure::OutOfMemory) => {
                row.status =
                    Status::Fail(Reason::GdlcOutOfMemory, format!("{} GiB", args.memory_gb))
            }
        }
    }
    // Two games of the same name in two collections would clash in a batch: keep names unique.
    let mut seen = BTreeMap::new();
    for (k, c) in ok.iter_mut().enumerate() {
        let n = seen.entry(c.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            c.name = format!("{}_{}", c.name, rows[row_of_module[k]].game.collection);
        }
    }

    // 2 and 3. Build the batches while the interpreter plays.
    let seeds = 1..=args.playouts.max(1);
    let records_dir = scratch.root.join("records");
    let _ = std::fs::create_dir_all(&records_dir);
    let record_file =
        |g: &CorpusGame| records_dir.join(format!("{}__{}.txt", g.collection, g.name));
    let to_play: Vec<usize> = row_of_module.clone();
    let (batches, interp) = std::thread::scope(|s| {
        let build = s.spawn(|| build_all(&scratch, &ok, &args, &limits(args.build_timeout)));
        // As many as for the rest: cargo's jobs and these share the cores while both run,
        // and the interpreter keeps all of them once the builds are done.
        let interp_jobs = args.jobs.max(1);
        let interp = pmap(
            &to_play,
            interp_jobs,
            Some(("interpreter", &|&i: &usize| label(&games[i]))),
            |&i| {
                let play_args = vec![
                    "play".to_string(),
                    games[i].kif.display().to_string(),
                    "traces".to_string(),
                    format!("--seeds={}..{}", seeds.start(), seeds.end()),
                ];
                let out = gdl_tests::compiled::run_limited(
                    &common::this_exe(),
                    &play_args,
                    &[],
                    &limits(args.play_timeout),
                )
                .map_err(|e| e.to_string())?;
                std::fs::write(record_file(&games[i]), out).map_err(|e| e.to_string())
            },
        );
        let batches = build.join().unwrap_or_default();
        (batches, interp)
    });
    let batches: Vec<Result<Batch, (Reason, String)>> = if batches.len() == ok.len() {
        batches
    } else {
        vec![Err((Reason::RustcError, "the build thread failed".into())); ok.len()]
    };

    // 4. Play the compiled games and compare.
    let work: Vec<usize> = (0..ok.len()).collect();
    let checks = pmap(
        &work,
        args.jobs,
        Some(("check", &|&k: &usize| ok[k].name.clone())),
        |&k| {
            let g = &games[row_of_module[k]];
            let batch = match &batches[k] {
                Ok(b) => b,
                Err((reason, m)) => return Err((*reason, m.clone())),
            };
            if let Err(e) = &interp[k] {
                return Err((Reason::InterpreterFailed, e.clone()));
            }
            let text =
                compiled::compiled_records(batch, &ok[k].name, &seeds, &limits(args.play_timeout))
                    .map_err(|e| (Reason::BinaryFailed, e.to_string()))?;
            if let (Some(reference), Some(seed1)) =
                (&g.trace, gdl_tools::compare::split_records(&text).first())
            {
                compare_with_reference(seed1, reference)
                    .map_err(|m| (Reason::MismatchReference, m))?;
            }
            let interpreted = std::fs::read_to_string(record_file(g))
                .map_err(|e| (Reason::InterpreterFailed, e.to_string()))?;
            let records = gdl_tools::compare::split_records(&interpreted);
            compare_with_interpreter(&text, &records, *seeds.start())
                .map_err(|m| (Reason::MismatchInterpreter, m))
        },
    );
    for (k, c) in checks.into_iter().enumerate() {
        let row = &mut rows[row_of_module[k]];
        match c {
            Ok(stats) => {
                row.playouts = stats.playouts;
                row.states = stats.states;
            }
            Err((reason, m)) => row.status = Status::Fail(reason, m),
        }
    }

    let report = report(&rows, &args, started.elapsed(), load_before);
    print!("{report}");
    if let Some(path) = &args.out
        && let Err(e) = std::fs::write(path, &report)
    {
        eprintln!("cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    if rows
        .iter()
        .all(|r| matches!(r.status, Status::Pass | Status::Rejected))
    {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Builds every game into some batch; for each game, its batch or why it has none.
fn build_all(
    scratch: &Scratch,
    games: &[CompiledGame],
    args: &Args,
    limits: &Limits,
) -> Vec<Result<Batch, (Reason, String)>> {
    let mut result: Vec<Option<Result<Batch, (Reason, String)>>> = vec![None; games.len()];
    let sizes: Vec<usize> = games.iter().map(|g| g.rust.len()).collect();
    let mut plan: Vec<Vec<usize>> = compiled::plan_batches(&sizes, args.batch_bytes);
    let mut next = 0;
    let mut batches: Vec<Batch> = Vec::new();
    let mut stale = true;
    while next < plan.len() {
        if stale {
            match compiled::write_workspace(scratch, "corpus", games, &plan) {
                Ok(b) => batches = b,
                Err(e) => {
                    for r in result.iter_mut().filter(|r| r.is_none()) {
                        *r = Some(Err((Reason::RustcError, format!("cannot write: {e}"))));
                    }
                    break;
                }
            }
            stale = false;
        }
        let (members, batch) = (plan[next].clone(), batches[next].clone());
        next += 1;
        let start = Instant::now();
        let r = compiled::cargo_build(scratch, Some(std::slice::from_ref(&batch.package)), limits);
        let names: String = batch.games.join(" ").chars().take(100).collect();
        eprintln!(
            "[cargo {next}/{}] {} game(s), {} bytes: {} ({:.0} s): {names}",
            plan.len(),
            members.len(),
            batch.rust_bytes,
            if r.is_ok() { "built" } else { "FAILED" },
            start.elapsed().as_secs_f64(),
        );
        let e = match r {
            Ok(()) => {
                for &i in &members {
                    result[i] = Some(Ok(batch.clone()));
                }
                continue;
            }
            Err(e) => e,
        };
        let (reason, message) = match &e {
            RunError::TimedOut(t) => (Reason::RustcTimeout, format!("{} s", t.as_secs())),
            RunError::Failed { stderr, .. } if common::is_out_of_memory(stderr) => {
                (Reason::RustcOutOfMemory, format!("{} GiB", args.memory_gb))
            }
            RunError::Failed { stderr, .. } => (Reason::RustcError, first_error(stderr)),
            RunError::Spawn(m) => (Reason::RustcError, m.clone()),
        };
        // Pin a rustc error on the modules it names (all of a batch of one); build the other
        // games again one by one.
        let named: Vec<usize> = match &e {
            _ if members.len() == 1 => members.clone(),
            RunError::Failed { stderr, .. } => members
                .iter()
                .zip(&batch.modules)
                .filter(|(_, m)| stderr.contains(&format!("src/{m}.rs")))
                .map(|(&i, _)| i)
                .collect(),
            _ => Vec::new(),
        };
        for &i in &members {
            if named.contains(&i) {
                result[i] = Some(Err((reason, message.clone())));
            } else {
                plan.push(vec![i]);
                stale = true;
            }
        }
    }
    result
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err((Reason::RustcError, "not built".into()))))
        .collect()
}

/// The first `error` line of cargo's output and the location line after it.
fn first_error(stderr: &str) -> String {
    let mut lines = stderr.lines().skip_while(|l| !l.starts_with("error"));
    let first = lines.next().unwrap_or("").trim().to_string();
    match lines.find(|l| l.trim_start().starts_with("-->")) {
        Some(at) => format!("{first} at {}", at.trim_start().trim_start_matches("--> ")),
        None if first.is_empty() => stderr.lines().last().unwrap_or("").to_string(),
        None => first,
    }
}

/// The Markdown report: the summary, the failures by reason, the table of every game.
fn report(rows: &[Row], args: &Args, elapsed: Duration, load_before: Option<String>) -> String {
    let passed = rows.iter().filter(|r| r.status == Status::Pass).count();
    let rejected = rows.iter().filter(|r| r.status == Status::Rejected).count();
    let good = passed + rejected;
    let mut s = String::from("# Corpus report\n\n");
    let _ = writeln!(
        s,
        "`cargo xtask corpus --playouts {}{}` (gdlc {}): **{good} of {} games pass ({:.1}%)** \
         ({passed} compiled and checked, {rejected} invalid descriptions rejected); {:.0} s; \
         load average before: {}, after: {}.\n",
        args.playouts,
        args.games
            .as_ref()
            .map_or(String::new(), |g| format!(" --games '{g}'")),
        env!("CARGO_PKG_VERSION"),
        rows.len(),
        100.0 * good as f64 / rows.len().max(1) as f64,
        elapsed.as_secs_f64(),
        load_before.unwrap_or_else(|| "?".into()),
        common::load_average().unwrap_or_else(|| "?".into()),
    );
    let mut by_reason: BTreeMap<Reason, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        if let Status::Fail(reason, _) = &r.status {
            by_reason.entry(*reason).or_default().push(r);
        }
    }
    if !by_reason.is_empty() {
        s.push_str("## Failures\n\n");
        for (reason, rs) in &by_reason {
            let _ = writeln!(s, "- **{}** ({}):", reason.text(), rs.len());
            for r in rs {
                if let Status::Fail(_, m) = &r.status {
                    let m: String = m.chars().take(300).collect();
                    let _ = writeln!(
                        s,
                        "  - {}/{}: {}",
                        r.game.collection,
                        r.game.name,
                        m.replace('\n', " ")
                    );
                }
            }
        }
        s.push('\n');
    }
    s.push_str("## Games\n\n");
    s.push_str(
        "| collection | game | status | Rust bytes | gdlc s | gdlc peak MiB | playouts | states |\n",
    );
    s.push_str("|---|---|---|---:|---:|---:|---:|---:|\n");
    for r in rows {
        let status = match &r.status {
            Status::Pass => "pass".to_string(),
            Status::Rejected => "rejected (invalid)".to_string(),
            Status::Fail(reason, _) => format!("FAIL: {}", reason.text()),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {status} | {} | {:.2} | {:.0} | {} | {} |",
            r.game.collection,
            r.game.name,
            r.rust_bytes,
            r.gdlc_seconds,
            r.gdlc_peak_kib as f64 / 1024.0,
            r.playouts,
            r.states
        );
    }
    let _ = writeln!(
        s,
        "\ncorpus: {good} of {} pass ({:.1}%)",
        rows.len(),
        100.0 * good as f64 / rows.len().max(1) as f64
    );
    s
}

#[cfg(test)]
mod tests {
    use super::first_error;

    #[test]
    fn first_error_with_its_location() {
        let out = "warning: x\nerror[E0308]: mismatched types\n  --> b/src/chess.rs:3:4\n  |\n";
        assert_eq!(
            first_error(out),
            "error[E0308]: mismatched types at b/src/chess.rs:3:4"
        );
        assert_eq!(first_error("killed\n"), "killed");
    }
}
