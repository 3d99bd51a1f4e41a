//! What the tasks share: selecting games, the child processes (compile one game, play with the
//! interpreter), a small parallel map, and reading a child's results.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use gdl_tests::CorpusGame;
use gdl_tests::compiled::{Limits, RunError, run_limited};

/// The games whose name (or `collection/name`) matches one of the comma-separated `patterns`:
/// with `*` / `?`, a glob matched against the whole name or `collection/name`; without, a
/// collection's name (all its games), `collection/name`, or a substring of the name. `None`
/// selects every game. The syntax of `--games` in every task but `strength`, which takes
/// exact names (a substring would take in every variant of a game).
pub fn select(games: Vec<CorpusGame>, patterns: Option<&str>) -> Vec<CorpusGame> {
    let Some(patterns) = patterns else {
        return games;
    };
    let patterns: Vec<&str> = patterns.split(',').map(str::trim).collect();
    games
        .into_iter()
        .filter(|g| {
            let full = format!("{}/{}", g.collection, g.name);
            patterns.iter().any(|p| {
                if p.contains(['*', '?']) {
                    glob(p, &g.name) || glob(p, &full)
                } else {
                    g.collection == *p || g.name.contains(p) || full == *p
                }
            })
        })
        .collect()
}

/// Whether `text` matches the glob `pattern` (`*` any run, `?` any one character).
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // Classic two-pointer matching with backtracking to the last `*`.
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// Names an item in progress lines.
pub type Label<'a, T> = &'a (dyn Fn(&T) -> String + Sync);

/// `f` over `items` on `jobs` threads, results in order. With `progress = Some((stage,
/// label))`, a line naming each finished item is printed on standard error.
pub fn pmap<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    progress: Option<(&str, Label<'_, T>)>,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(i) else { break };
                    let start = Instant::now();
                    let r = f(item);
                    let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                    if let Some((stage, label)) = progress {
                        eprintln!(
                            "[{stage} {n}/{}] {} ({:.1} s)",
                            items.len(),
                            label(item),
                            start.elapsed().as_secs_f64()
                        );
                    }
                    if let Ok(mut rs) = results.lock() {
                        rs[i] = Some(r);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// This program, to run its internal sub-commands as children.
pub fn this_exe() -> PathBuf {
    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("xtask"))
}

/// What compiling one game in a child process gave.
#[derive(Clone, Debug)]
pub struct CompileResult {
    pub type_name: String,
    pub rust_bytes: usize,
    pub gdlc_seconds: f64,
    /// The peak resident memory of the compiling process, KiB (0: not known).
    pub gdlc_peak_kib: u64,
    /// The backend gdlc chose (`inline`, `propnet`).
    pub backend: String,
}

/// Why a game could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileFailure {
    TooLargeToGround(String),
    Error(String),
    TimedOut(Duration),
    OutOfMemory,
}

/// Compiles `kif` into the module file `out` in a child process under `limits`.
pub fn compile_in_child(
    kif: &Path,
    out: &Path,
    limits: &Limits,
) -> Result<CompileResult, CompileFailure> {
    let args = compile_args(kif, out);
    match run_limited(&this_exe(), &args, &[], limits) {
        Ok(stdout) => parse_compile_output(&stdout),
        Err(e) => Err(compile_failure(e)),
    }
}

/// The arguments of `xtask compile-one` (with the default backend).
pub fn compile_args(kif: &Path, out: &Path) -> Vec<String> {
    vec![
        "compile-one".to_string(),
        kif.display().to_string(),
        out.display().to_string(),
    ]
}

/// Reads the summary line of `xtask compile-one`.
pub fn parse_compile_output(stdout: &[u8]) -> Result<CompileResult, CompileFailure> {
    let text = String::from_utf8_lossy(stdout);
    let fields = gdl_tools::bench::parse_line(text.trim());
    let get = |k: &str| fields.iter().find(|(key, _)| *key == k).map(|(_, v)| *v);
    match (get("type"), get("rust_bytes"), get("gdlc_seconds")) {
        (Some(t), Some(b), Some(s)) => Ok(CompileResult {
            type_name: t.to_string(),
            rust_bytes: b.parse().unwrap_or(0),
            gdlc_seconds: s.parse().unwrap_or(0.0),
            gdlc_peak_kib: get("gdlc_peak_kib")
                .and_then(|k| k.parse().ok())
                .unwrap_or(0),
            backend: get("backend").unwrap_or("").to_string(),
        }),
        _ => Err(CompileFailure::Error(format!("unexpected output `{text}`"))),
    }
}

/// Why `xtask compile-one` failed.
pub fn compile_failure(e: RunError) -> CompileFailure {
    match e {
        RunError::TimedOut(t) => CompileFailure::TimedOut(t),
        RunError::Failed { stderr, status } => {
            if is_out_of_memory(&stderr) {
                CompileFailure::OutOfMemory
            } else if let Some(line) = stderr.lines().find(|l| l.contains("[grounding-too-large]"))
            {
                CompileFailure::TooLargeToGround(line.trim().to_string())
            } else {
                let first = stderr
                    .lines()
                    .find(|l| l.starts_with("error"))
                    .unwrap_or(stderr.lines().next().unwrap_or(""));
                CompileFailure::Error(format!("{status}: {}", first.trim()))
            }
        }
        e => CompileFailure::Error(e.to_string()),
    }
}

/// Whether a child's standard error says that it ran out of memory.
pub fn is_out_of_memory(stderr: &str) -> bool {
    [
        "memory allocation of",
        "out of memory",
        "Cannot allocate memory",
    ]
    .iter()
    .any(|m| stderr.contains(m))
}

/// `xtask compile-one KIF OUT`: the child side of [`compile_in_child`].
pub fn compile_one(kif: &Path, out: &Path, backend: gdlc::codegen::Backend) -> ExitCode {
    let source = match std::fs::read(kif) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", kif.display());
            return ExitCode::from(2);
        }
    };
    let stem = kif
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy().into_owned());
    let start = Instant::now();
    let mut options = gdlc::CompileOptions::for_game(&stem);
    options.codegen.backend = backend;
    match gdlc::compile(&source, &options) {
        Ok(c) => {
            let seconds = start.elapsed().as_secs_f64();
            if let Err(e) = std::fs::write(out, &c.rust) {
                eprintln!("error: cannot write {}: {e}", out.display());
                return ExitCode::from(2);
            }
            println!(
                "type={} rust_bytes={} gdlc_seconds={seconds:.3} backend={} gdlc_peak_kib={}",
                c.type_name,
                c.rust.len(),
                c.stats.engine_name(),
                gdlc::progress::peak_memory_kib().unwrap_or(0)
            );
            ExitCode::SUCCESS
        }
        Err(errors) => {
            for d in &errors {
                eprintln!("error[{}]: {}", d.code, d.message);
            }
            ExitCode::FAILURE
        }
    }
}

/// `xtask play KIF ARGS...`: the interpreter behind a game binary's command line.
pub fn play(kif: &Path, args: &[String]) -> ExitCode {
    let source = match std::fs::read(kif) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", kif.display());
            return ExitCode::from(2);
        }
    };
    let stem = kif
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy().into_owned());
    // Corpus games are timed as the reference reasoner plays them, valid or not.
    let options = gdlc::CheckOptions {
        accept_invalid: true,
        ..gdlc::CheckOptions::default()
    };
    let game = gdlc::frontend::load(&source, &options)
        .and_then(|checked| gdlc::interp::Interpreter::from_checked(&checked, Default::default()));
    match game {
        Ok(game) => gdl_tools::cli::run_game_as(&game, &stem, "interpreted", args),
        Err(errors) => {
            for d in &errors {
                eprintln!("error[{}]: {}", d.code, d.message);
            }
            ExitCode::FAILURE
        }
    }
}

/// The machine's load averages (1, 5, 15 minutes), from `/proc/loadavg`.
pub fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(
        text.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The repository's root (the parent of `xtask/`).
pub fn repo_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    root.canonicalize().unwrap_or(root)
}

/// The cargo target directory of the repository.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => PathBuf::from(d),
        None => repo_root().join("target"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("chess*", "chess_200"));
        assert!(glob("*_8x8", "amazons_8x8"));
        assert!(glob("t?c*", "ticTacToe"));
        assert!(!glob("chess", "chess_200"));
        assert!(glob("*", ""));
        assert!(!glob("a*b", "acbx"));
    }

    #[test]
    fn selects_by_substring_or_glob() {
        let g = |c: &str, n: &str| CorpusGame {
            collection: c.into(),
            name: n.into(),
            kif: PathBuf::new(),
            trace: None,
        };
        let games = vec![
            g("ggp-repository", "chess_200"),
            g("ggp-repository", "ticTacToe"),
            g("ggp-base-tests", "ticTacToe"),
        ];
        let names = |v: Vec<CorpusGame>| -> Vec<String> {
            v.into_iter()
                .map(|g| format!("{}/{}", g.collection, g.name))
                .collect()
        };
        assert_eq!(
            names(select(games.clone(), Some("chess"))),
            ["ggp-repository/chess_200"]
        );
        assert_eq!(
            names(select(games.clone(), Some("ggp-base-tests/*"))),
            ["ggp-base-tests/ticTacToe"]
        );
        assert_eq!(
            names(select(games.clone(), Some("ggp-base-tests"))),
            ["ggp-base-tests/ticTacToe"],
            "a collection by its name"
        );
        assert_eq!(
            names(select(games.clone(), Some("ggp-repository/ticTacToe"))),
            ["ggp-repository/ticTacToe"]
        );
        assert_eq!(select(games.clone(), Some("tic*,chess_200")).len(), 3);
        assert_eq!(select(games, None).len(), 3);
    }
}
