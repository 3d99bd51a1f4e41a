//! `cargo xtask bench`: the benchmark loop of `gdl_runtime::bench` on the compiled and the
//! interpreted engine, one game at a time, single thread, and the cost of compiling.
//!
//! For each game: `xtask compile-one` compiles it (timed, peak memory by `/usr/bin/time` when
//! there is one); the module goes into a standalone crate with the release profile of
//! `gdlc build` (`target/gdlc-scratch/bench/<game>`, built into
//! `target/gdlc-scratch/bench-target`; cargo timed the same way, gdl-runtime built beforehand);
//! its binary runs `bench --seconds T`, and the interpreter (`xtask play KIF bench`) the same.
//! Games of `--large` get a row in a second table: compile time and peak memory of gdlc and of
//! rustc, or why they do not compile.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use gdl_tests::compiled::{CI_GAMES, Limits, RunError, Scratch, run_limited, write_files};
use gdl_tests::{CorpusGame, corpus_games};
use gdlc::codegen::Backend;
use gdlc::crate_gen::{self, CrateOptions, Layout, ReleaseProfile, RuntimeDep};

use crate::common::{self, CompileFailure};

/// The arguments of `cargo xtask bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Comma-separated patterns of the games (as for `corpus`) [default: the CI set].
    #[arg(long, value_name = "PATTERN")]
    pub games: Option<String>,
    /// Seconds of playouts per game and engine.
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Games whose compile time and peak memory get their own table.
    #[arg(long, default_value = "chess_200,amazons_10x10,hex")]
    pub large: String,
    /// Games also compiled with each backend, for a table comparing them (comma-separated
    /// names).
    #[arg(
        long,
        default_value = "checkers,englishDraughts,reversi,hex,speedChess,amazons_8x8,skirmish"
    )]
    pub compare_backends: String,
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

/// Playouts per second of ggplib and Sancho on this project's machines, measured with the same
/// loop (median of 3 runs of 10 s).
const PROPNET: &[(&str, f64, f64)] = &[
    ("ticTacToe", 582_355.0, 242_691.0),
    ("connectFour", 172_623.0, 119_205.0),
    ("breakthrough", 33_552.0, 26_815.0),
    ("reversi", 2_043.0, 2_107.0),
    ("hex", 2_548.0, 1_374.0),
    ("speedChess", 6_038.0, 3_044.0),
];

/// One engine's summary line, parsed.
#[derive(Clone, Debug, Default)]
struct Line {
    playouts_per_sec: f64,
    states_per_sec: f64,
    /// ` role=avg ...` as printed.
    goals: String,
}

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
    result: Result<Line, String>,
}

impl Default for CompiledRun {
    fn default() -> Self {
        CompiledRun {
            backend: String::new(),
            rust_bytes: 0,
            gdlc: None,
            rustc: None,
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

pub fn run(args: Args) -> ExitCode {
    let started = Instant::now();
    let all = corpus_games();
    let mut names: Vec<String> = match &args.games {
        Some(p) => common::select(all.clone(), Some(p))
            .into_iter()
            .map(|g| g.name)
            .collect(),
        None => CI_GAMES.iter().map(|s| s.to_string()).collect(),
    };
    let large: Vec<String> = args
        .large
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    for l in &large {
        if !names.contains(l) {
            names.push(l.clone());
        }
    }
    names.dedup();
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
    let mut comparisons = Vec::new();
    let compare: Vec<&str> = args
        .compare_backends
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    for name in compare {
        let Some(game) = find(name) else { continue };
        eprintln!("[bench] {name}: both backends");
        let inline = bench_compiled(&game, Backend::Inline, &scratch, &target, &args, &limits);
        let propnet = bench_compiled(&game, Backend::Propnet, &scratch, &target, &args, &limits);
        let auto = rows
            .iter()
            .find(|r| r.name == name)
            .map_or(String::new(), |r| r.compiled.backend.clone());
        comparisons.push(Comparison {
            name: name.to_string(),
            inline,
            propnet,
            auto,
        });
    }
    let report = report(
        &rows,
        &comparisons,
        &large,
        &args,
        started.elapsed(),
        load_before,
    );
    print!("{report}");
    if let Some(path) = &args.out
        && let Err(e) = std::fs::write(path, keep_hand_written(path, report))
    {
        eprintln!("cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// The line after which `BENCHMARKS.md` holds sections measured by other commands (the
/// players); a regenerated report keeps them.
const KEPT_MARKER: &str =
    "<!-- Sections below are measured by the commands they give; cargo xtask bench keeps them. -->";

/// `report`, followed by what the file at `path` holds from [`KEPT_MARKER`] on.
fn keep_hand_written(path: &std::path::Path, mut report: String) -> String {
    if let Ok(old) = std::fs::read_to_string(path)
        && let Some(i) = old.find(KEPT_MARKER)
    {
        report.push('\n');
        report.push_str(&old[i..]);
    }
    report
}

/// Builds gdl-runtime into the bench target directory, so that no game's build time has it.
fn warm_up(scratch: &Scratch, target: &Path, limits: &Limits) -> Result<(), RunError> {
    let dir = scratch.root.join("warm-up");
    let source = "(role r) (init (p)) (<= (legal r a) (true (p))) (<= (next (q)) (does r a)) \
                  (<= terminal (true (q))) (goal r 100)";
    let c = gdlc::compile(source, &gdlc::CompileOptions::for_game("warmUp"))
        .map_err(|_| RunError::Spawn("the warm-up game does not compile".into()))?;
    let files = crate_gen::single_game_crate("warmUp", &c, &crate_options(scratch, "warm-up"));
    write_files(&dir, &files.files).map_err(|e| RunError::Spawn(e.to_string()))?;
    cargo_build(&dir, target, limits).map(|_| ())
}

fn crate_options(scratch: &Scratch, package: &str) -> CrateOptions {
    CrateOptions {
        package: package.to_string(),
        runtime: RuntimeDep::Path(scratch.runtime.display().to_string()),
        layout: Layout::Standalone(ReleaseProfile::default()),
        player_rules: None,
    }
}

/// `cargo build --release` of one crate, timed by `/usr/bin/time` when there is one: the
/// seconds and the peak resident memory (KiB) of the largest process (rustc).
fn cargo_build(dir: &Path, target: &Path, limits: &Limits) -> Result<(f64, Option<u64>), RunError> {
    let build = gdlc::cargo::Build {
        manifest_dir: dir,
        target_dir: target,
        packages: gdlc::cargo::Packages::Root,
        quiet: true,
    };
    let argv: Vec<String> = std::iter::once(gdlc::cargo::program())
        .chain(build.args())
        .collect();
    timed(&argv, limits, &dir.join("time.txt")).map(|(_, t, m)| (t, m))
}

/// Runs `argv` under `limits`, timed: its standard output, the seconds and the peak resident
/// memory (KiB, from `/usr/bin/time` when there is one).
fn timed(
    argv: &[String],
    limits: &Limits,
    time_file: &Path,
) -> Result<(Vec<u8>, f64, Option<u64>), RunError> {
    let time = Path::new("/usr/bin/time");
    let start = Instant::now();
    let _ = std::fs::remove_file(time_file);
    let out = if time.is_file() {
        let mut args = vec![
            "-o".to_string(),
            time_file.display().to_string(),
            "-f".to_string(),
            "%M".to_string(),
        ];
        args.extend(argv.iter().cloned());
        run_limited(time, &args, &[], limits)?
    } else {
        run_limited(Path::new(&argv[0]), &argv[1..], &[], limits)?
    };
    let seconds = start.elapsed().as_secs_f64();
    let peak = std::fs::read_to_string(time_file)
        .ok()
        .and_then(|t| t.lines().last()?.trim().parse().ok());
    Ok((out, seconds, peak))
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

/// The arguments of a `bench` command line after `engine_args`.
fn bench_args(engine_args: Vec<String>, seconds: f64) -> Vec<String> {
    let mut v = engine_args;
    v.extend(["bench".to_string(), format!("--seconds={seconds}")]);
    v
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
    run
}

/// Runs a `bench` command line and parses its summary line.
fn run_bench(program: &Path, args: &[String], limits: &Limits) -> Result<Line, String> {
    let out = run_limited(program, args, &[], limits).map_err(|e| {
        let s = e.to_string();
        s.lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(120)
            .collect::<String>()
    })?;
    let text = String::from_utf8_lossy(&out);
    let line = text.lines().last().unwrap_or("");
    let fields = gdl_runtime::bench::parse_line(line);
    let get = |k: &str| {
        fields
            .iter()
            .find(|(key, _)| *key == k)
            .and_then(|(_, v)| v.parse::<f64>().ok())
    };
    let goals = line
        .split_once("avg_goal")
        .map_or(String::new(), |(_, g)| g.trim().to_string());
    match (get("playouts_per_sec"), get("states_per_sec")) {
        (Some(p), Some(s)) => Ok(Line {
            playouts_per_sec: p,
            states_per_sec: s,
            goals,
        }),
        _ => Err(format!("unexpected output `{line}`")),
    }
}

/// A rate with thousands separators, or 2 decimals below 10.
fn rate(x: f64) -> String {
    if x < 10.0 {
        format!("{x:.2}")
    } else {
        thousands(x.round() as u64)
    }
}

/// An integer with thousands separators.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or("n/a".into(), |k| format!("{}", k / 1024))
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn report(
    rows: &[Row],
    comparisons: &[Comparison],
    large: &[String],
    args: &Args,
    elapsed: Duration,
    load_before: Option<String>,
) -> String {
    let mut s = String::from("# Benchmarks\n\n");
    let _ = writeln!(
        s,
        "Random playouts per second of the code gdlc generates (`compiled`) and of the reference \
         interpreter (`interpreted`), with the benchmark loop of `gdl_runtime::bench`: single \
         thread, {} s per game and engine, one uniform random draw per role per step; states are \
         steps + 1 per playout. Compiled crates use the release profile of `gdlc build` \
         (opt-level 3, codegen-units 16, panic = abort). Regenerate with:\n\n\
         ```sh\ncargo xtask bench --seconds {} --out BENCHMARKS.md\n```\n\n\
         Machine: {} cores ({}); load average before {}, after {} (the machine is shared: \
         expect 10-20% noise, more under load). The run took {:.0} s.\n",
        args.seconds,
        args.seconds,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model(),
        load_before.unwrap_or_else(|| "?".into()),
        common::load_average().unwrap_or_else(|| "?".into()),
        elapsed.as_secs_f64()
    );
    s.push_str(
        "| game | compiled po/s | interpreted po/s | ratio | compiled states/s | interpreted \
         states/s | avg goals (compiled) | backend | Rust bytes | gdlc s | rustc s |\n",
    );
    s.push_str("|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|\n");
    for r in rows {
        let (cp, cs, goals) = match &r.compiled.result {
            Ok(l) => (
                rate(l.playouts_per_sec),
                rate(l.states_per_sec),
                l.goals.clone(),
            ),
            Err(e) => (format!("pending: {e}"), String::new(), String::new()),
        };
        let (ip, is) = match &r.interpreted {
            Ok(l) => (rate(l.playouts_per_sec), rate(l.states_per_sec)),
            Err(e) => (format!("failed: {e}"), String::new()),
        };
        let ratio = match (&r.compiled.result, &r.interpreted) {
            (Ok(c), Ok(i)) if i.playouts_per_sec > 0.0 => {
                format!("{:.0}x", c.playouts_per_sec / i.playouts_per_sec)
            }
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "| {} | {cp} | {ip} | {ratio} | {cs} | {is} | {goals} | {} | {} | {} | {} |",
            r.name,
            r.compiled.backend,
            thousands(r.compiled.rust_bytes as u64),
            r.compiled
                .gdlc
                .map_or(String::new(), |(t, _)| format!("{t:.2}")),
            r.compiled
                .rustc
                .map_or(String::new(), |(t, _)| format!("{t:.1}")),
        );
    }
    s.push_str(
        "\n## Against the propnet engines\n\n\
         Playouts per second of ggplib (C++ propnet, the fastest published GDL engine) and Sancho \
         (Java propnet) on this project's machines, measured with the same loop (median of 3 runs \
         of 10 s), beside the compiled code above. The project's goal is at least 4x the best \
         propnet engine.\n\n\
         | game | compiled po/s | ggplib po/s | Sancho po/s | compiled / best propnet |\n\
         |---|---:|---:|---:|---:|\n",
    );
    for (game, ggplib, sancho) in PROPNET {
        let Some(r) = rows.iter().find(|r| r.name == *game) else {
            continue;
        };
        let (cp, ratio) = match &r.compiled.result {
            Ok(l) => (
                rate(l.playouts_per_sec),
                format!("{:.2}x", l.playouts_per_sec / ggplib.max(*sancho)),
            ),
            Err(e) => (format!("pending: {e}"), String::new()),
        };
        let _ = writeln!(
            s,
            "| {game} | {cp} | {} | {} | {ratio} |",
            rate(*ggplib),
            rate(*sancho)
        );
    }
    s.push_str(
        "\n## Compile time and peak memory of the largest games\n\n\
         gdlc: `gdlc::compile` (its own clock; peak resident memory of the process). rustc: \
         `cargo build --release` of the game's crate, gdl-runtime already built (wall clock; \
         peak resident memory of the largest process).\n\n\
         | game | backend | Rust bytes | gdlc s | gdlc peak MiB | rustc s | rustc peak MiB | status |\n\
         |---|---|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows.iter().filter(|r| large.contains(&r.name)) {
        let status = match &r.compiled.result {
            Ok(_) => "ok".to_string(),
            Err(e) => format!("pending: {e}"),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {status} |",
            r.name,
            r.compiled.backend,
            thousands(r.compiled.rust_bytes as u64),
            r.compiled
                .gdlc
                .map_or(String::new(), |(t, _)| format!("{t:.2}")),
            r.compiled.gdlc.map_or(String::new(), |(_, m)| mib(m)),
            r.compiled
                .rustc
                .map_or(String::new(), |(t, _)| format!("{t:.1}")),
            r.compiled.rustc.map_or(String::new(), |(_, m)| mib(m)),
        );
    }
    if !comparisons.is_empty() {
        backends_table(&mut s, comparisons);
    }
    s
}

/// The table of the games compiled with both backends.
fn backends_table(s: &mut String, comparisons: &[Comparison]) {
    s.push_str(
        "\n## The two backends\n\n\
         The same games compiled with each backend: `inline` (straight-line Rust per output, \
         chunked into `#[inline(never)]` functions when large) and `propnet` (the circuit as \
         tables for the incremental engine of `gdl_runtime::propnet`). `auto`, the default, \
         picks one by a cost model per state; rustc is `cargo build --release` of the game's \
         crate (gdl-runtime already built).\n\n\
         | game | inline po/s | propnet po/s | auto picks | inline Rust bytes | inline rustc s \
         | inline rustc peak MiB | propnet rustc s |\n\
         |---|---:|---:|---|---:|---:|---:|---:|\n",
    );
    let po = |r: &CompiledRun| match &r.result {
        Ok(l) => rate(l.playouts_per_sec),
        Err(e) => format!("failed: {e}"),
    };
    for c in comparisons {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            po(&c.inline),
            po(&c.propnet),
            c.auto,
            thousands(c.inline.rust_bytes as u64),
            c.inline
                .rustc
                .map_or(String::new(), |(t, _)| format!("{t:.1}")),
            c.inline.rustc.map_or(String::new(), |(_, m)| mib(m)),
            c.propnet
                .rustc
                .map_or(String::new(), |(t, _)| format!("{t:.1}")),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::rate;

    #[test]
    fn rates_read_well() {
        assert_eq!(rate(1234567.8), "1,234,568");
        assert_eq!(rate(999.4), "999");
        assert_eq!(rate(3.456), "3.46");
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(1000), "1,000");
    }
}
