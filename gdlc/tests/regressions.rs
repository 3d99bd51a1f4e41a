//! The inputs of `$GDL_CORPUS/regressions/` (each once broke gdlc: a panic, an abort on a
//! huge allocation, a stack overflow, a hang, a silently wrong compiled game), each run as
//! its README says, under a memory limit and a watchdog: each must end in a correct answer or a
//! clear error. Skipped, with one line, when the corpus is absent.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use gdlc::ground::GroundOptions;
use gdlc::pipeline::LastResort;
use gdlc::{CompileOptions, compile};

/// The address space a gdlc run may use (the aborts were on 4 to 8 GiB allocations).
const MEMORY_KB: u64 = 3_000_000;

/// How long a run may take before it is judged hung.
const WATCHDOG: Duration = Duration::from_secs(120);

fn regressions() -> Option<PathBuf> {
    gdl_tests::corpus_path("regressions", "regressions")
}

struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Spawns gdlc under the memory limit, with piped output.
fn spawn(args: &[&str]) -> Child {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KB}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gdlc starts")
}

/// Reads a pipe to its end on another thread.
fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Waits for `child`, killing it (and failing) past the watchdog.
fn wait(mut child: Child, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for gdlc") {
            return status;
        }
        if start.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: no end after {WATCHDOG:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs gdlc to its end.
fn gdlc(args: &[&str]) -> Run {
    let mut child = spawn(args);
    let out = drain(child.stdout.take().expect("piped"));
    let err = drain(child.stderr.take().expect("piped"));
    let status = wait(child, &args.join(" "));
    Run {
        status,
        stdout: out.join().expect("stdout read"),
        stderr: err.join().expect("stderr read"),
    }
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

/// Exit code 1 with a located error: no signal (abort, stack overflow), no panic.
fn assert_clear_error(run: &Run, what: &str) {
    assert_eq!(
        run.status.code(),
        Some(1),
        "{what}: {:?}\n{}",
        run.status,
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
    assert!(
        run.stderr.contains("Error") || run.stderr.contains("error"),
        "{what}: {}",
        run.stderr
    );
}

/// Small grounding limits (the path the defaults take, only sooner).
fn small_limits(options: &mut CompileOptions) {
    options.ground = GroundOptions {
        max_atoms: 200_000,
        max_matches: 20_000_000,
        ..options.ground.clone()
    };
}

/// Compiles a regression input with small grounding limits and no last resort (the `gdl!`
/// macro's way) and returns the errors.
fn compile_errors(dir: &Path, name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(name)).expect("readable");
    let mut options = CompileOptions::for_game("regression");
    options.last_resort = LastResort::Fail;
    small_limits(&mut options);
    match compile(text.as_str(), &options) {
        Ok(_) => panic!("{name}: compiled, but its game reads a relation too large to ground"),
        Err(errors) => errors.into_iter().map(|d| d.message).collect(),
    }
}

/// Compiles a regression input with small grounding limits and a game's defaults: the module
/// embeds the interpreter (right by construction) and the grounder's finding is a warning.
fn embedded_warnings(dir: &Path, name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(name)).expect("readable");
    let mut options = CompileOptions::for_game("regression");
    small_limits(&mut options);
    match compile(text.as_str(), &options) {
        Ok(c) => {
            assert!(c.stats.embedded_interpreter, "{name}: {:?}", c.stats);
            assert!(c.rust.contains("embedded_game!"), "{name}: {}", c.rust);
            c.warnings.into_iter().map(|d| d.message).collect()
        }
        Err(errors) => panic!("{name}: not embedded: {errors:?}"),
    }
}

/// A static `terminal` read from a relation too large to ground: the compiled game said
/// `terminal = false` (the interpreter: terminal at step 0). Now compiling without a last
/// resort refuses, naming it; with a game's defaults the module embeds the interpreter and
/// the finding is a warning.
#[test]
fn compiled_static_terminal_is_refused_not_wrong() {
    let Some(dir) = regressions() else { return };
    let errors = compile_errors(&dir, "compiled-static-terminal.kif");
    assert!(
        errors.iter().any(|m| m.contains("`terminal`")),
        "{errors:?}"
    );
    let warnings = embedded_warnings(&dir, "compiled-static-terminal.kif");
    assert!(
        warnings.iter().any(|m| m.contains("`terminal`")),
        "{warnings:?}"
    );
}

/// The same with a static `legal` of 10^10 moves.
#[test]
fn compiled_static_legal_is_refused_not_wrong() {
    let Some(dir) = regressions() else { return };
    let errors = compile_errors(&dir, "compiled-static-legal.kif");
    assert!(errors.iter().any(|m| m.contains("`legal`")), "{errors:?}");
    let warnings = embedded_warnings(&dir, "compiled-static-legal.kif");
    assert!(
        warnings.iter().any(|m| m.contains("`legal`")),
        "{warnings:?}"
    );
}

/// The interpreter on the static terminal: within a budget that holds the 30^5 rows it agrees
/// with the reference semantics (terminal at step 0); within a smaller one it says which
/// relation is too large.
#[test]
fn interpreter_on_a_huge_static_relation_answers_or_names_it() {
    let Some(dir) = regressions() else { return };
    let f = path(&dir, "compiled-static-terminal.kif");
    let small = gdlc(&["trace", &f, "--max-relation-cells", "1000000"]);
    assert_clear_error(&small, "static terminal, small budget");
    assert!(small.stderr.contains("`big/5`"), "{}", small.stderr);
    assert!(
        small.stderr.contains("interpreter-budget"),
        "{}",
        small.stderr
    );
    let large = gdlc(&["trace", &f, "--max-relation-cells", "200000000"]);
    assert!(
        large.status.success(),
        "{:?}\n{}",
        large.status,
        large.stderr
    );
    assert!(
        large
            .stdout
            .ends_with("step 0\nstate s0\nterminal 0 goals x=100\n"),
        "{}",
        large.stdout
    );
}

/// A state that grows a level a step and never ends: the trace streams and stops at the step
/// limit with a message (it was built in memory until an abort on a 4 GiB allocation).
#[test]
fn growing_state_stops_at_the_step_limit() {
    let Some(dir) = regressions() else { return };
    let run = gdlc(&[
        "trace",
        &path(&dir, "growing-state.kif"),
        "--max-steps",
        "300",
    ]);
    assert_eq!(
        run.status.code(),
        Some(1),
        "{:?} {}",
        run.status,
        run.stderr
    );
    assert!(
        run.stderr.contains("no terminal state after 300 steps"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout.matches("\nstep ").count(), 301, "steps 0..=300");
}

/// Mutated corpus files that aborted on 4 to 8 GiB allocations: a clear error instead, and
/// for those past the interpreter's budget, the relation named.
#[test]
fn mutated_games_that_aborted_end_in_a_clear_error() {
    let Some(dir) = regressions() else { return };
    for (name, seed, budget) in [
        ("oom-mutated-connectFour.kif", "897", true),
        ("oom-mutated-2.kif", "789", false),
        ("oom-mutated-3.kif", "592", true),
        ("slow-mutated-2.kif", "509", false),
    ] {
        let run = gdlc(&["trace", &path(&dir, name), "--seed", seed]);
        assert_clear_error(&run, name);
        if budget {
            assert!(
                run.stderr.contains("interpreter-budget")
                    && run.stderr.contains("while deriving `"),
                "{name}: {}",
                run.stderr
            );
        }
    }
}

/// A game whose every step has a million legal moves per role: slow, but it streams (no
/// output at all for 20 s before).
#[test]
fn a_slow_game_streams_its_trace() {
    let Some(dir) = regressions() else { return };
    let mut child = spawn(&[
        "trace",
        &path(&dir, "slow-mutated-tron.kif"),
        "--seed",
        "381",
    ]);
    let err = drain(child.stderr.take().expect("piped"));
    let mut stdout = child.stdout.take().expect("piped");
    let start = Instant::now();
    let mut seen = Vec::new();
    let mut buf = [0u8; 1 << 16];
    let found = loop {
        if seen.windows(10).any(|w| w == b"legal red ") {
            break true;
        }
        if start.elapsed() > WATCHDOG {
            break false;
        }
        match stdout.read(&mut buf) {
            Ok(0) | Err(_) => break false,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    let stderr = err.join().unwrap_or_default();
    assert!(found, "no legal moves written; stderr: {stderr}");
    assert!(seen.starts_with(b"roles red blue\nseed 381\nstep 0\nstate "));
}

/// A rule of 25,000 literals overflowed the interpreter's stack.
#[test]
fn a_rule_of_25000_literals_is_evaluated() {
    let Some(dir) = regressions() else { return };
    let run = gdlc(&["trace", &path(&dir, "wide-terminal-25k.kif"), "--seed", "1"]);
    assert!(run.status.success(), "{:?}\n{}", run.status, run.stderr);
    assert!(run.stdout.contains("terminal 0 goals"), "{}", run.stdout);
}

/// The same width with 25,000 different literals (no duplicate to drop): planning and the
/// dependency graph stay near-linear.
#[test]
fn a_rule_of_25000_different_literals_is_evaluated() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("regressions");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let mut text =
        String::from("(role x) (init s) (legal x a) (next s) (goal x 100)\n(<= terminal");
    for i in 0..25_000 {
        text.push_str(&format!(" (p {i})"));
    }
    text.push_str(")\n");
    for i in 0..25_000 {
        text.push_str(&format!("(p {i}) "));
    }
    let f = dir.join("wide-distinct.kif");
    std::fs::write(&f, text).expect("written");
    let run = gdlc(&["trace", &f.display().to_string()]);
    assert!(run.status.success(), "{:?}\n{}", run.status, run.stderr);
    assert!(
        run.stdout.contains("terminal 0 goals x=100"),
        "{}",
        run.stdout
    );
}

/// `gdlc trace | head -c 100` panicked on the closed pipe: now it ends quietly.
#[test]
fn a_closed_pipe_ends_quietly() {
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/connectFour.kif");
    for cmd in ["trace", "emit", "fmt"] {
        let mut child = spawn(&[cmd, &game.display().to_string()]);
        let err = drain(child.stderr.take().expect("piped"));
        let mut stdout = child.stdout.take().expect("piped");
        let mut first = [0u8; 100];
        stdout.read_exact(&mut first).expect("100 bytes");
        drop(stdout);
        let status = wait(child, cmd);
        let stderr = err.join().unwrap_or_default();
        assert!(!stderr.contains("panicked"), "{cmd}: {stderr}");
        assert!(status.success(), "{cmd}: {status:?} {stderr}");
    }
}
