//! Running what `cargo xtask bench` measures: cargo builds and child processes timed with
//! their peak memory, and the summary line of a `bench` command parsed.

use std::path::{Path, PathBuf};
use std::time::Instant;

use gdl_tests::compiled::{Limits, RunError, Scratch, run_limited, write_files};
use gdlc::crate_gen::{self, CrateOptions, Layout, ReleaseProfile, RuntimeDep};

/// One engine's summary line, parsed.
#[derive(Clone, Debug, Default)]
pub struct Line {
    pub playouts_per_sec: f64,
    pub states_per_sec: f64,
    /// Playouts per second of the playing thread's CPU time, when the line gives it.
    pub playouts_per_cpu_sec: Option<f64>,
    /// ` role=avg ...` as printed.
    pub goals: String,
}

/// Builds gdl-runtime into the bench target directory, so that no game's build time has it.
pub fn warm_up(scratch: &Scratch, target: &Path, limits: &Limits) -> Result<(), RunError> {
    let dir = scratch.root.join("warm-up");
    let source = "(role r) (init (p)) (<= (legal r a) (true (p))) (<= (next (q)) (does r a)) \
                  (<= terminal (true (q))) (goal r 100)";
    let c = gdlc::compile(source, &gdlc::CompileOptions::for_game("warmUp"))
        .map_err(|_| RunError::Spawn("the warm-up game does not compile".into()))?;
    let files = crate_gen::single_game_crate("warmUp", &c, &crate_options(scratch, "warm-up"));
    write_files(&dir, &files.files).map_err(|e| RunError::Spawn(e.to_string()))?;
    cargo_build(&dir, target, limits).map(|_| ())
}

pub fn crate_options(scratch: &Scratch, package: &str) -> CrateOptions {
    CrateOptions {
        package: package.to_string(),
        runtime: RuntimeDep::Path(scratch.runtime.display().to_string()),
        layout: Layout::Standalone(ReleaseProfile::default()),
        player_rules: None,
    }
}

/// `cargo build --release` of one crate, timed by `/usr/bin/time` when there is one: the
/// seconds and the peak resident memory (KiB) of the largest process (rustc).
pub fn cargo_build(
    dir: &Path,
    target: &Path,
    limits: &Limits,
) -> Result<(f64, Option<u64>), RunError> {
    let build = gdlc::cargo::Build {
        manifest_dir: dir,
        target_dir: target,
        packages: gdlc::cargo::Packages::Root,
        quiet: true,
        cpu: gdlc::cargo::TargetCpu::Host,
    };
    let argv: Vec<String> = std::iter::once(gdlc::cargo::program())
        .chain(build.args())
        .collect();
    timed(&argv, limits, &dir.join("time.txt")).map(|(_, t, m)| (t, m))
}

/// Runs `argv` under `limits`, timed: its standard output, the seconds and the peak resident
/// memory (KiB, from `/usr/bin/time` when there is one).
pub fn timed(
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

/// The arguments of a `bench` command line after `engine_args`.
pub fn bench_args(engine_args: Vec<String>, seconds: f64) -> Vec<String> {
    let mut v = engine_args;
    v.extend(["bench".to_string(), format!("--seconds={seconds}")]);
    v
}

/// Runs a `bench` command line and parses its summary line (the last line of standard
/// output: `key=value` fields, as `gdl_tools::bench` and the hand-written simulators print
/// them).
pub fn run_bench(program: &Path, args: &[String], limits: &Limits) -> Result<Line, String> {
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
    parse_summary(text.lines().last().unwrap_or(""))
}

/// The rates and goals of one summary line.
pub fn parse_summary(line: &str) -> Result<Line, String> {
    let fields = gdl_tools::bench::parse_line(line);
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
            playouts_per_cpu_sec: get("playouts_per_cpu_sec"),
            goals,
        }),
        _ => Err(format!("unexpected output `{line}`")),
    }
}

/// The hand-written bitboard simulators of `$GDL_CORPUS/bench/limit`, built into the bench
/// target directory (their own release profile: lto, one codegen unit).
pub struct Limit {
    pub binary: PathBuf,
}

impl Limit {
    /// Builds the simulators (the corpus may be read-only: the target directory is ours).
    pub fn build(corpus: &Path, target: &Path, limits: &Limits) -> Result<Limit, String> {
        let manifest = corpus.join("bench/limit/Cargo.toml");
        if !manifest.is_file() {
            return Err(format!("{} is absent", manifest.display()));
        }
        let limit_target = target.with_file_name("limit-target");
        // Built for this machine's processor, as the games it is measured against are.
        let mut args: Vec<String> = vec!["build".into(), "--release".into(), "--quiet".into()];
        args.extend(gdlc::cargo::TargetCpu::Host.cargo_args());
        args.extend([
            "--manifest-path".to_string(),
            manifest.display().to_string(),
            "--target-dir".to_string(),
            limit_target.display().to_string(),
        ]);
        run_limited(Path::new(&gdlc::cargo::program()), &args, &[], limits)
            .map_err(|e| format!("cannot build the simulators: {e}"))?;
        Ok(Limit {
            binary: limit_target.join("release/limit"),
        })
    }

    /// The benchmark loop of the simulator of `game` (`ttt`, `c4`).
    pub fn bench(&self, game: &str, seconds: f64, limits: &Limits) -> Result<Line, String> {
        let args = vec!["bench".to_string(), game.to_string(), seconds.to_string()];
        run_bench(&self.binary, &args, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_summary;

    #[test]
    fn reads_both_kinds_of_summary_line() {
        let ours = parse_summary(
            "game=ticTacToe engine=compiled seconds=5.000 playouts=10 playouts_per_sec=2.0 \
             states_per_sec=18.5 avg_goal xplayer=64.83 oplayer=35.17",
        )
        .unwrap();
        assert_eq!(ours.playouts_per_sec, 2.0);
        assert_eq!(ours.goals, "xplayer=64.83 oplayer=35.17");
        assert_eq!(ours.playouts_per_cpu_sec, None);
        let with_cpu = parse_summary(
            "game=ticTacToe engine=compiled seconds=5.000 playouts=10 playouts_per_sec=2.0 \
             states_per_sec=18.5 cpu_seconds=4.000 playouts_per_cpu_sec=2.5 avg_goal x=50.00",
        )
        .unwrap();
        assert_eq!(with_cpu.playouts_per_cpu_sec, Some(2.5));
        assert_eq!(with_cpu.goals, "x=50.00");
        let limit = parse_summary(
            "RESULT game=ttt playouts=1 playouts_per_sec=6100000 states_per_sec=50000000 \
             avg_goals=64.80,35.20",
        )
        .unwrap();
        assert_eq!(limit.playouts_per_sec, 6_100_000.0);
        assert_eq!(limit.states_per_sec, 50_000_000.0);
        assert!(parse_summary("error: nothing").is_err());
    }
}
