//! `cargo xtask bench`: BENCHMARKS.md in one command. The benchmark loop of
//! `gdl_tools::bench` on the compiled and the interpreted engine, one game at a time, single
//! thread; the peers' rates beside the compiled ones; the hand-written simulators of the corpus
//! (`bench/limit`) measured in the same run; the compiled loop on several threads; the cost of
//! compiling.
//!
//! For each game: `xtask compile-one` compiles it (timed, peak memory by `/usr/bin/time` when
//! there is one); the module goes into a standalone crate with the release profile of
//! `gdlc build`, built for this processor as `gdlc bench` builds it (`target/gdlc-scratch/bench/<game>`, built into
//! `target/gdlc-scratch/bench-target`; cargo timed the same way, gdl-runtime built beforehand);
//! its binary runs `bench --seconds T`, and the interpreter (`xtask play KIF bench`) the same.
//! Games of `--large` get a row in a second table: compile time and peak memory of gdlc and of
//! rustc, or why they do not compile. `measure.rs` runs and times the children, `peers.rs`
//! reads the peers' rates from `spec/performance.md`, `report.rs` writes the Markdown,
//! `validation.rs` measures the compiled games' `validate` (states per second).

mod measure;
mod numbers;
mod peers;
mod report;
mod validation;

pub(crate) use report::{KEPT_MARKER, cpu_model};

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use gdl_tests::compiled::{CI_GAMES, Limits, RunError, Scratch, write_files};
use gdl_tests::{CorpusGame, corpus_dir, corpus_games};
use gdlc::codegen::Backend;
use gdlc::crate_gen;

use crate::common::{self, CompileFailure};
use measure::{Limit, Line, bench_args, cargo_build, crate_options, run_bench, timed, warm_up};

/// The arguments of `cargo xtask bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Comma-separated patterns of the games (as for `corpus`) [default: the CI set].
    #[arg(long, value_name = "PATTERN")]
    pub games: Option<String>,
    /// Seconds of playouts per game and engine.
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Games whose compile time and peak memory get their own table: by default the corpus
    /// games with the most Rust and the longest gdlc times of CORPUS.md, and three of the table.
    #[arg(
        long,
        default_value = "amazonsTorus,ruleDepthExponential,slaughter,chess,racer4,alexChess,\
                         amazonsSuicide,chess_200,amazons_10x10,hex"
    )]
    pub large: String,
    /// Games also compiled with each backend, for a table comparing them (comma-separated
    /// names).
    #[arg(
        long,
        default_value = "checkers,englishDraughts,reversi,hex,speedChess,amazons_8x8,skirmish"
    )]
    pub compare_backends: String,
    /// Rounds of the compiled game against the hand-written simulator (ticTacToe,
    /// connectFour), one after the other in each round.
    #[arg(long, default_value_t = 3)]
    pub limit_rounds: usize,
    /// Games whose compiled loop also runs on several threads (comma-separated names).
    #[arg(long, default_value = "ticTacToe,connectFour,breakthrough,checkers")]
    pub threads_games: String,
    /// Threads of the scaling table [default: the machine's cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Rounds of 1 thread against N threads, alternating.
    #[arg(long, default_value_t = 2)]
    pub threads_rounds: usize,
    /// Skip the validation section (states explored per second by `validate` on ticTacToe,
    /// connectFour and eightPuzzle, 1 thread and N).
    #[arg(long)]
    pub skip_validate: bool,
    /// Write the Markdown report to this file (it is printed anyway).
    #[arg(long, value_name = "BENCHMARKS.md")]
    pub out: Option<PathBuf>,
    /// Time limit of gdlc on one game, in seconds.
    #[arg(long, default_value_t = 600)]
    pub compile_timeout: u64,
    /// Time limit of cargo on one game, in seconds.
    #[arg(long, default_value_t = 1800)]
    pub build_timeout: u64,
    /// Address-space limit of every child process, in GiB.
    #[arg(long, default_value_t = 8.0)]
    pub memory_gb: f64,
}

/// The hand-written simulators of `bench/limit` and the corpus games they simulate.
const LIMIT_GAMES: &[(&str, &str)] = &[("ticTacToe", "ttt"), ("connectFour", "c4")];

/// The compiled engine of a game with one backend: the cost of compiling, and the benchmark.
#[derive(Clone, Debug)]
struct CompiledRun {
    /// The backend gdlc used (`inline`, `propnet`).
    backend: String,
    rust_bytes: usize,
    /// Seconds and peak KiB of gdlc.
    gdlc: Option<(f64, Option<u64>)>,
    /// Seconds and peak KiB of `cargo build --release`.
    rustc: Option<(f64, Option<u64>)>,
    /// The game's binary, once built.
    binary: Option<PathBuf>,
    result: Result<Line, String>,
}

impl Default for CompiledRun {
    fn default() -> Self {
        CompiledRun {
            backend: String::new(),
            rust_bytes: 0,
            gdlc: None,
            rustc: None,
            binary: None,
            result: Err(String::new()),
        }
    }
}

/// A game's measurements.
#[derive(Clone, Debug)]
struct Row {
    name: String,
    compiled: CompiledRun,
    interpreted: Result<Line, String>,
}

impl Row {
    fn new(name: &str) -> Row {
        Row {
            name: name.to_string(),
            compiled: CompiledRun::default(),
            interpreted: Err(String::new()),
        }
    }
}

/// A game compiled with both backends.
#[derive(Clone, Debug)]
struct Comparison {
    name: String,
    inline: CompiledRun,
    propnet: CompiledRun,
    /// The backend `auto` picks.
    auto: String,
}

/// One round of two measurements made one after the other: the compiled game and its
/// hand-written simulator, or the compiled game on 1 thread and on N.
#[derive(Clone, Debug)]
struct Round {
    first: Result<Line, String>,
    second: Result<Line, String>,
}

/// Per game, its rounds, or why there are none.
type Rounds = Vec<(String, Result<Vec<Round>, String>)>;

/// Everything measured, for the report.
struct Measured {
    rows: Vec<Row>,
    comparisons: Vec<Comparison>,
    peers: Result<Vec<peers::Peer>, String>,
    /// Per simulated game: the compiled game (first) and the simulator (second).
    limit: Rounds,
    threads: usize,
    /// Per game: 1 thread (first) and N (second).
    scaling: Rounds,
    /// `validate` per game, 1 thread and N (none when skipped).
    validation: validation::Rounds,
}

fn names_of(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

pub fn run(args: Args) -> ExitCode {
    let started = Instant::now();
    let all = corpus_games();
    let peers = peers::read(&corpus_dir());
    let mut names: Vec<String> = match &args.games {
        Some(p) => common::select(all.clone(), Some(p))
            .into_iter()
            .map(|g| g.name)
            .collect(),
        None => CI_GAMES.iter().map(|s| s.to_string()).collect(),
    };
    let large = names_of(&args.large);
    // Every game with peer rates, every game with a simulator or a scaling row, and the large
    // ones are measured.
    let wanted = large
        .iter()
        .cloned()
        .chain(LIMIT_GAMES.iter().map(|(g, _)| g.to_string()))
        .chain(names_of(&args.threads_games))
        .chain(
            validation::GAMES
                .iter()
                .filter(|_| !args.skip_validate)
                .map(|(g, _)| g.to_string()),
        )
        .chain(
            peers
                .iter()
                .flatten()
                .filter(|_| args.games.is_none())
                .map(|p| p.game.clone()),
        );
    for l in wanted {
        if !names.contains(&l) {
            names.push(l);
        }
    }
    let find = |n: &str| -> Option<CorpusGame> {
        let mut v: Vec<&CorpusGame> = all.iter().filter(|g| g.name == n).collect();
        v.sort_by_key(|g| g.collection != "ggp-repository");
        v.first().map(|g| (*g).clone())
    };
    let scratch = Scratch::in_target_dir(&common::target_dir(), "bench");
    let target = scratch.root.with_file_name("bench-target");
    let limits = |secs: u64| Limits {
        timeout: Some(Duration::from_secs(secs)),
        memory_bytes: Some((args.memory_gb * (1u64 << 30) as f64) as u64),
    };
    let play_limits = limits(args.seconds as u64 * 3 + 600);
    let load_before = common::load_average();
    if let Err(e) = warm_up(&scratch, &target, &limits(args.build_timeout)) {
        eprintln!("cannot build gdl-runtime: {e}");
        return ExitCode::FAILURE;
    }
    let mut rows = Vec::new();
    for name in &names {
        let Some(game) = find(name) else {
            let mut row = Row::new(name);
            row.compiled.result = Err("not in the corpus".into());
            row.interpreted = Err("not in the corpus".into());
            rows.push(row);
            continue;
        };
        eprintln!("[bench] {name}");
        rows.push(bench_game(&game, &scratch, &target, &args, &limits));
    }
    let binary_of = |name: &str| -> Result<PathBuf, String> {
        let row = rows.iter().find(|r| r.name == name).ok_or("not measured")?;
        row.compiled
            .binary
            .clone()
            .ok_or_else(|| match &row.compiled.result {
                Err(e) => e.clone(),
                Ok(_) => "no binary".into(),
            })
    };
    // The simulators, each round right beside the compiled game.
    let simulators = Limit::build(&corpus_dir(), &target, &limits(args.build_timeout));
    let mut limit = Vec::new();
    for (game, sim) in LIMIT_GAMES {
        eprintln!("[bench] {game}: against the hand-written simulator");
        let rounds = simulators.as_ref().map_err(Clone::clone).and_then(|s| {
            let binary = binary_of(game)?;
            Ok((0..args.limit_rounds)
                .map(|_| Round {
                    first: run_bench(&binary, &bench_args(vec![], args.seconds), &play_limits),
                    second: s.bench(sim, args.seconds, &play_limits),
                })
                .collect())
        });
        limit.push((game.to_string(), rounds));
    }
    // The compiled loop on 1 thread and on N, alternating.
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let on = |binary: &Path, t: usize| {
        let mut a = bench_args(vec![], args.seconds);
        a.push(format!("--threads={t}"));
        run_bench(binary, &a, &play_limits)
    };
    let mut scaling = Vec::new();
    for game in names_of(&args.threads_games) {
        eprintln!("[bench] {game}: 1 thread and {threads}");
        let rounds = binary_of(&game).map(|binary| {
            (0..args.threads_rounds)
                .map(|_| Round {
                    first: on(&binary, 1),
                    second: on(&binary, threads),
                })
                .collect()
        });
        scaling.push((game, rounds));
    }
    // `validate` on 1 thread and on N, alternating.
    let mut validation = Vec::new();
    for &(game, search) in validation::GAMES.iter().filter(|_| !args.skip_validate) {
        eprintln!("[bench] {game}: validate on 1 thread and {threads}");
        let measure =
            |t| validation::measure(&binary_of(game)?, search, args.seconds, t, args.memory_gb);
        let rounds = (0..args.threads_rounds)
            .map(|_| Ok((measure(1)?, measure(threads)?)))
            .collect::<Result<Vec<_>, String>>();
        validation.push((game.to_string(), rounds));
    }
    let mut comparisons = Vec::new();
    for name in names_of(&args.compare_backends) {
        let Some(game) = find(&name) else { continue };
        eprintln!("[bench] {name}: both backends");
        let inline = bench_compiled(&game, Backend::Inline, &scratch, &target, &args, &limits);
        let propnet = bench_compiled(&game, Backend::Propnet, &scratch, &target, &args, &limits);
        let auto = rows
            .iter()
            .find(|r| r.name == name)
            .map_or(String::new(), |r| r.compiled.backend.clone());
        comparisons.push(Comparison {
            name,
            inline,
            propnet,
            auto,
        });
    }
    let measured = Measured {
        rows,
        comparisons,
        peers,
        limit,
        threads,
        scaling,
        validation,
    };
    let report = report::report(&measured, &large, &args, started.elapsed(), load_before);
    print!("{report}");
    if let Some(path) = &args.out
        && let Err(e) = std::fs::write(path, report::keep_hand_written(path, report))
    {
        eprintln!("cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

fn bench_game(
    game: &CorpusGame,
    scratch: &Scratch,
    target: &Path,
    args: &Args,
    limits: &dyn Fn(u64) -> Limits,
) -> Row {
    let mut row = Row::new(&game.name);
    let play_limits = limits(args.seconds as u64 * 3 + 600);
    row.interpreted = run_bench(
        &common::this_exe(),
        &bench_args(
            vec!["play".into(), game.kif.display().to_string()],
            args.seconds,
        ),
        &play_limits,
    );
    row.compiled = bench_compiled(game, Backend::Auto, scratch, target, args, limits);
    row
}

/// Compiles `game` with `backend` (timed), builds its crate from scratch (timed) and runs its
/// benchmark.
fn bench_compiled(
    game: &CorpusGame,
    backend: Backend,
    scratch: &Scratch,
    target: &Path,
    args: &Args,
    limits: &dyn Fn(u64) -> Limits,
) -> CompiledRun {
    let mut run = CompiledRun::default();
    let dir_name = match backend {
        Backend::Auto => game.name.clone(),
        b => format!("{}-{}", game.name, b.name()),
    };
    let dir = scratch.root.join(&dir_name);
    let _ = std::fs::create_dir_all(&dir);
    let module = dir.join("module.rs");
    let mut argv = vec![common::this_exe().display().to_string()];
    argv.extend(common::compile_args(&game.kif, &module));
    argv.push(format!("--backend={}", backend.name()));
    let compiled = match timed(
        &argv,
        &limits(args.compile_timeout),
        &dir.join("gdlc-time.txt"),
    ) {
        Ok((stdout, _, peak)) => common::parse_compile_output(&stdout).inspect(|c| {
            // The child's own clock, without process start-up.
            run.gdlc = Some((c.gdlc_seconds, peak));
            run.rust_bytes = c.rust_bytes;
            run.backend = c.backend.clone();
        }),
        Err(e) => Err(common::compile_failure(e)),
    };
    let c = match compiled {
        Ok(c) => c,
        Err(e) => {
            run.result = Err(match e {
                CompileFailure::TooLargeToGround(_) => "gdlc: too large to ground".into(),
                CompileFailure::Error(m) => format!("gdlc error: {m}"),
                CompileFailure::TimedOut(t) => format!("gdlc: over {} s", t.as_secs()),
                CompileFailure::OutOfMemory => format!("gdlc: over {} GiB", args.memory_gb),
            });
            return run;
        }
    };
    let rust = std::fs::read_to_string(&module).unwrap_or_default();
    let compiled = gdlc::Compiled {
        rust,
        type_name: c.type_name,
        stats: Default::default(),
        warnings: Vec::new(),
    };
    let package = crate_gen::package_name(&dir_name);
    let files =
        crate_gen::single_game_crate(&game.name, &compiled, &crate_options(scratch, &package));
    if let Err(e) = write_files(&dir, &files.files) {
        run.result = Err(format!("cannot write the crate: {e}"));
        return run;
    }
    // Build from scratch: an unchanged crate would be a no-op for cargo.
    if let Ok(f) = std::fs::File::options()
        .append(true)
        .open(dir.join("src/lib.rs"))
    {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
    match cargo_build(&dir, target, &limits(args.build_timeout)) {
        Ok(t) => run.rustc = Some(t),
        Err(e) => {
            run.result = Err(match e {
                RunError::TimedOut(t) => format!("rustc: over {} s", t.as_secs()),
                RunError::Failed { stderr, .. } if common::is_out_of_memory(&stderr) => {
                    format!("rustc: over {} GiB", args.memory_gb)
                }
                e => format!(
                    "rustc error: {}",
                    e.to_string().lines().take(3).collect::<Vec<_>>().join(" ")
                ),
            });
            return run;
        }
    }
    let binary = target.join("release").join(&files.bin);
    run.result = run_bench(
        &binary,
        &bench_args(Vec::new(), args.seconds),
        &limits(args.seconds as u64 * 3 + 600),
    );
    run.binary = Some(binary);
    run
}
