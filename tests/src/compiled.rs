//! Compiled games checked against the interpreter and the reference traces: the harness shared
//! by `tests/tests/compiled.rs` (the CI set) and `cargo xtask corpus` (every game).
//!
//! Games are compiled with [`gdlc::compile`], written as modules of a few *batch* crates in a
//! scratch cargo workspace ([`write_workspace`]) and built with one cargo run into a target
//! directory that all scratch workspaces share, so that `gdl-runtime` and unchanged batches are
//! not rebuilt. Each batch has one binary (`BIN GAME traces --seeds 1..N`, see
//! [`gdl_tools::cli`]) that prints the records of N seeded playouts of a game; these are
//! compared with the interpreter's records of the same seeds ([`gdl_tools::compare`]) and the
//! seed-1 record with the reference trace.

use std::io::Read as _;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gdl_tools::compare::{self, CompareStats, playout_record, split_records};
use gdlc::crate_gen::{self, CrateOptions, GameModule, Layout, ReleaseProfile, RuntimeDep};

/// The CI set: compiled, built and checked by `tests/tests/compiled.rs` on every test run, and
/// benchmarked by `cargo xtask bench`.
pub const CI_GAMES: &[&str] = &[
    // ggp-repository
    "ticTacToe",
    "connectFour",
    "breakthrough",
    "knightThrough",
    "checkers",
    "englishDraughts",
    "reversi",
    "hex",
    "speedChess",
    "chess_200",
    "pentago",
    "amazons_8x8",
    "nineBoardTicTacToe",
    "eightPuzzle",
    "skirmish",
    "sudoku",
    "3pConnectFour",
    // Its match arms once crashed rustc 1.95's LLVM (SIGSEGV) when `next` disjuncts over move
    // sets of up to a quarter of a role's moves went into the arms (session 23).
    "cittaceot",
    // ggp-base-tests
    "test_case_1a",
    "test_case_1b",
    "test_case_2a",
    "test_case_2b",
    "test_case_2c",
    "test_case_3a",
    "test_case_3b",
    "test_case_3c",
    "test_case_3d",
    "test_case_3e",
    "test_case_3f",
    "test_case_4a",
    "test_case_5a",
    "test_case_5b",
    "test_case_5c",
    "test_case_5d",
    "test_case_5e",
    "test_clean_not_distinct",
    "test_distinct_beginning_rule",
    "simpleMutex",
];

/// A compiled game.
#[derive(Clone, Debug)]
pub struct CompiledGame {
    pub name: String,
    pub type_name: String,
    /// The backend gdlc generated the code with.
    pub backend: gdlc::codegen::Backend,
    pub rust: String,
    /// How long `gdlc::compile` took.
    pub compile_time: Duration,
}

/// Compiles a description with the default options for its name.
pub fn compile_game(name: &str, source: &str) -> Result<CompiledGame, String> {
    compile_game_with(name, source, gdlc::codegen::Backend::Auto)
}

/// [`compile_game`] with the given backend.
pub fn compile_game_with(
    name: &str,
    source: &str,
    backend: gdlc::codegen::Backend,
) -> Result<CompiledGame, String> {
    let start = Instant::now();
    let mut options = gdlc::CompileOptions::for_game(name);
    options.codegen.backend = backend;
    match gdlc::compile(source, &options) {
        Ok(c) => Ok(CompiledGame {
            name: name.to_string(),
            type_name: c.type_name,
            backend: c.stats.backend,
            rust: c.rust,
            compile_time: start.elapsed(),
        }),
        Err(errors) => Err(errors
            .iter()
            .map(|d| format!("[{}] {}", d.code, d.message))
            .collect::<Vec<_>>()
            .join("; ")),
    }
}

/// A scratch workspace: its root, and the target directory it builds into.
#[derive(Clone, Debug)]
pub struct Scratch {
    pub root: PathBuf,
    pub target: PathBuf,
    /// The `gdl-runtime` crate the batches depend on.
    pub runtime: PathBuf,
    pub profile: ReleaseProfile,
}

impl Scratch {
    /// The scratch workspace `name` under `<target>/gdlc-scratch/`, building into
    /// `<target>/gdlc-scratch/target`; `gdl-runtime` from this repository.
    pub fn in_target_dir(target: &Path, name: &str) -> Scratch {
        let base = target.join("gdlc-scratch");
        let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gdl-runtime");
        Scratch {
            root: base.join(name),
            target: base.join("target"),
            runtime: runtime.canonicalize().unwrap_or(runtime),
            // Batches are checked, not timed: units built in parallel (the product's crates
            // use one unit, for code that does not depend on where the crate lies).
            profile: ReleaseProfile {
                hot_codegen_units: None,
                ..ReleaseProfile::default()
            },
        }
    }
}

/// A batch crate of a scratch workspace.
#[derive(Clone, Debug)]
pub struct Batch {
    /// `<prefix>-<hash of the game names>`: the same games make the same package, whose build
    /// cargo can reuse.
    pub package: String,
    /// The games it holds, by name.
    pub games: Vec<String>,
    /// Their module names (`src/<module>.rs`), in the same order.
    pub modules: Vec<String>,
    /// Bytes of generated Rust.
    pub rust_bytes: usize,
    /// Its binary, once built.
    pub binary: PathBuf,
}

/// Splits games (given by their sizes in bytes of Rust) into batches, in order, each at most
/// `max_bytes` unless one game alone is larger.
pub fn plan_batches(sizes: &[usize], max_bytes: usize) -> Vec<Vec<usize>> {
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut current = 0;
    for (i, &size) in sizes.iter().enumerate() {
        match batches.last_mut() {
            Some(b) if current + size <= max_bytes => b.push(i),
            _ => {
                batches.push(vec![i]);
                current = 0;
            }
        }
        current += size;
    }
    batches
}

/// Writes the scratch workspace: one member crate per batch of `games` (indices into
/// `games`; module names are unique over all of `games`). Files that already hold the right contents are not touched, and
/// member directories of earlier plans are removed.
pub fn write_workspace(
    scratch: &Scratch,
    prefix: &str,
    games: &[CompiledGame],
    batches: &[Vec<usize>],
) -> std::io::Result<Vec<Batch>> {
    let names: Vec<&str> = games.iter().map(|g| g.name.as_str()).collect();
    let modules = crate_gen::unique_module_names(&names);
    let mut members = Vec::new();
    let mut out = Vec::new();
    for batch in batches {
        let key: Vec<&[u8]> = batch.iter().map(|&i| games[i].name.as_bytes()).collect();
        let package = format!("{prefix}-{}", &crate_gen::cache_key(&key)[..10]);
        let batch_modules: Vec<GameModule<'_>> = batch
            .iter()
            .map(|&i| GameModule {
                name: games[i].name.clone(),
                module: modules[i].clone(),
                type_name: games[i].type_name.clone(),
                rust: &games[i].rust,
            })
            .collect();
        let options = CrateOptions {
            package: package.clone(),
            runtime: RuntimeDep::Path(scratch.runtime.display().to_string()),
            layout: Layout::Member,
            player_rules: None,
        };
        let files = crate_gen::multi_game_crate(&batch_modules, &options);
        let dir = scratch.root.join(&package);
        // Modules of games that moved to another batch would be dead files: start clean
        // unless the batch holds the same modules.
        let wanted: Vec<String> = files.files.iter().map(|f| f.path.clone()).collect();
        remove_unlisted(&dir.join("src"), &wanted)?;
        write_files(&dir, &files.files)?;
        members.push(package.clone());
        out.push(Batch {
            binary: scratch.target.join("release").join(&files.bin),
            package,
            games: batch.iter().map(|&i| games[i].name.clone()).collect(),
            modules: batch.iter().map(|&i| modules[i].clone()).collect(),
            rust_bytes: batch.iter().map(|&i| games[i].rust.len()).sum(),
        });
    }
    write_files(
        &scratch.root,
        &[crate_gen::CrateFile {
            path: "Cargo.toml".into(),
            contents: crate_gen::workspace_toml(&members, &scratch.profile),
        }],
    )?;
    if let Ok(entries) = std::fs::read_dir(&scratch.root) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(&format!("{prefix}-")) && !members.contains(&name) {
                std::fs::remove_dir_all(e.path())?;
            }
        }
    }
    Ok(out)
}

fn remove_unlisted(src: &Path, wanted: &[String]) -> std::io::Result<()> {
    let Ok(entries) = std::fs::read_dir(src) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let rel = format!("src/{}", e.file_name().to_string_lossy());
        if !wanted.contains(&rel) {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

pub use gdlc::cargo::write_files;

/// Limits of a child process.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Killed (with its whole process group) after this long.
    pub timeout: Option<Duration>,
    /// Address-space limit of the process and each of its children (`ulimit -v`).
    pub memory_bytes: Option<u64>,
}

/// Why a child process failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    Spawn(String),
    TimedOut(Duration),
    /// A non-zero exit, with the end of standard error.
    Failed {
        status: String,
        stderr: String,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "cannot start: {e}"),
            RunError::TimedOut(t) => write!(f, "timed out after {:.0} s", t.as_secs_f64()),
            RunError::Failed { status, stderr } => write!(f, "{status}: {stderr}"),
        }
    }
}

/// Runs `program args` under `limits`, capturing standard output (returned) and standard error
/// (in the error, last 4000 bytes).
pub fn run_limited(
    program: &Path,
    args: &[String],
    envs: &[(&str, &str)],
    limits: &Limits,
) -> Result<Vec<u8>, RunError> {
    let mut cmd = match limits.memory_bytes {
        Some(bytes) => {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", bytes / 1024))
                .arg(program)
                .args(args);
            c
        }
        None => {
            let mut c = Command::new(program);
            c.args(args);
            c
        }
    };
    cmd.envs(envs.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd
        .spawn()
        .map_err(|e| RunError::Spawn(format!("{}: {e}", program.display())))?;
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut buf);
        }
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_end(&mut buf);
        }
        buf
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => break Err(RunError::Spawn(e.to_string())),
        }
        if let Some(limit) = limits.timeout
            && start.elapsed() > limit
        {
            kill_group(&mut child);
            break Err(RunError::TimedOut(limit));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    let status = status?;
    if status.success() {
        Ok(out)
    } else {
        let err = String::from_utf8_lossy(&err);
        let tail: String = if err.len() > 4000 {
            let cut = err
                .char_indices()
                .map(|(i, _)| i)
                .find(|&i| i >= err.len() - 4000);
            err[cut.unwrap_or(0)..].to_string()
        } else {
            err.into_owned()
        };
        Err(RunError::Failed {
            status: status.to_string(),
            stderr: tail,
        })
    }
}

/// Kills a child started in its own process group, and the group (cargo's rustc processes).
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Builds the members `packages` of a scratch workspace (all with `None`) in release mode.
pub fn cargo_build(
    scratch: &Scratch,
    packages: Option<&[String]>,
    limits: &Limits,
) -> Result<(), RunError> {
    let args = gdlc::cargo::Build {
        manifest_dir: &scratch.root,
        target_dir: &scratch.target,
        packages: match packages {
            Some(ps) => gdlc::cargo::Packages::Only(ps),
            None => gdlc::cargo::Packages::Workspace,
        },
        quiet: true,
        cpu: gdlc::cargo::TargetCpu::Generic,
    }
    .args();
    let cargo = gdlc::cargo::program();
    run_limited(Path::new(&cargo), &args, &[], limits).map(|_| ())
}

/// The records of the playouts of `seeds` of `game`, played by a batch's binary.
pub fn compiled_records(
    batch: &Batch,
    game: &str,
    seeds: &RangeInclusive<u64>,
    limits: &Limits,
) -> Result<String, RunError> {
    let args = vec![
        game.to_string(),
        "traces".to_string(),
        format!("--seeds={}..{}", seeds.start(), seeds.end()),
        format!("--max-steps={}", compare::DEFAULT_MAX_STEPS),
    ];
    let out = run_limited(&batch.binary, &args, &[], limits)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The interpreter's records of the playouts of `seeds`.
pub fn interpreter_records(
    source: &str,
    seeds: &RangeInclusive<u64>,
) -> Result<Vec<String>, String> {
    // Games of the corpus are played as the reference reasoner plays them, valid or not.
    let options = gdlc::CheckOptions {
        accept_invalid: true,
        ..gdlc::CheckOptions::default()
    };
    let checked = gdlc::frontend::load(source, &options)
        .map_err(|e| format!("parse error: {}", e[0].message))?;
    let game = gdlc::interp::Interpreter::from_checked(&checked, Default::default())
        .map_err(|e| format!("interpreter: {}", e.first().map_or("", |d| &d.message)))?;
    Ok(seeds
        .clone()
        .map(|seed| playout_record(&game, seed, compare::DEFAULT_MAX_STEPS))
        .collect())
}

/// Compares the compiled engine's records (as a batch binary printed them) with the
/// interpreter's, seed by seed from `first_seed`.
pub fn compare_with_interpreter<S: AsRef<str>>(
    compiled: &str,
    interpreted: &[S],
    first_seed: u64,
) -> Result<CompareStats, String> {
    let records = split_records(compiled);
    if records.len() != interpreted.len() {
        return Err(format!(
            "the compiled binary printed {} playouts, not {}",
            records.len(),
            interpreted.len()
        ));
    }
    let mut stats = CompareStats::default();
    for (k, (c, i)) in records.iter().zip(interpreted).enumerate() {
        compare::compare_records(
            first_seed + k as u64,
            c,
            i.as_ref(),
            ["compiled", "interpreted"],
        )
        .map_err(|m| format!("mismatch with the interpreter: {m}"))?;
        stats.playouts += 1;
        stats.states += c.lines().filter(|l| l.starts_with("step ")).count() as u64;
    }
    Ok(stats)
}

/// Compares the seed-1 record of the compiled engine with the reference trace at `reference`
/// (without the GDL-II lines of the record, which reference traces do not have).
pub fn compare_with_reference(seed1: &str, reference: &Path) -> Result<(), String> {
    let expected = std::fs::read_to_string(reference)
        .map_err(|e| format!("cannot read {}: {e}", reference.display()))?;
    let seed1 = compare::reference_trace(seed1);
    compare::compare_records(1, &seed1, &expected, ["compiled", "reference"])
        .map_err(|m| format!("mismatch with the reference trace: {m}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_filled_in_order() {
        assert_eq!(
            plan_batches(&[5, 5, 20, 1, 1], 10),
            vec![vec![0, 1], vec![2], vec![3, 4]]
        );
        assert!(plan_batches(&[], 10).is_empty());
    }
}
