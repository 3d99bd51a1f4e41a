//! The commands around compiled games: `gdlc build` writes a crate whose binary reproduces the
//! reference trace; `gdlc trace|bench --engine compiled` build through the cache once and then
//! start without cargo; errors are reported, not panics.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gdlc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gdlc"))
}

/// The tic-tac-toe shipped in `examples/`, and its seed-1 trace by the interpreter (which the
/// conformance tests hold to the reference traces): the commands need no corpus.
fn tic_tac_toe() -> (PathBuf, String) {
    let kif = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ticTacToe.kif");
    let out = gdlc().arg("trace").arg(&kif).output().expect("gdlc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (kif, String::from_utf8(out.stdout).expect("UTF-8 trace"))
}

/// A fresh directory under cargo's temporary directory for integration tests.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn build_writes_a_crate_whose_binary_plays_the_reference_trace() {
    let (kif, reference) = tic_tac_toe();
    let dir = scratch("cli-build");
    let out = gdlc()
        .arg("build")
        .arg(&kif)
        .arg("-o")
        .arg(dir.join("ttt"))
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.starts_with("wrote "), "{stdout}");
    let crate_dir = dir.join("ttt");
    for f in ["Cargo.toml", "src/lib.rs", "src/main.rs"] {
        assert!(crate_dir.join(f).is_file(), "{f} missing");
    }
    let main = std::fs::read_to_string(crate_dir.join("src/main.rs")).unwrap();
    assert!(main.contains(
        "gdl_player::http::main_with_player(&gdl_tictactoe::TicTacToe, \"ticTacToe\", include_str!(\"rules.kif\"))"
    ), "{main}");

    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-build-target");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .unwrap();
    assert!(status.success(), "the generated crate does not build");
    let binary = target.join("release/gdl-tictactoe");
    let out = Command::new(&binary)
        .args(["trace", "--seed", "1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(text(&out).0, reference);

    let out = Command::new(&binary)
        .args(["bench", "--seconds", "0.2"])
        .output()
        .unwrap();
    let line = text(&out).0;
    assert!(
        line.starts_with("game=ticTacToe engine=compiled seconds=")
            && line.contains(" playouts_per_sec=")
            && line.contains(" states_per_sec=")
            && line.contains(" avg_goal x=")
            && line.contains(" o="),
        "{line}"
    );

    // The binary is also a player for these rules (and these only).
    let rules = std::fs::read_to_string(&kif).unwrap();
    let (mut child, addr) = gdl_tests::spawn_player(&binary, &["--threads", "2"]);
    let start = format!("( START m x ({rules}) 2 1 )");
    let replies = [
        gdl_tests::post(addr, "( START m x ((role x) (role o)) 2 1 )"),
        gdl_tests::post(addr, &start),
        gdl_tests::post(addr, "( PLAY m NIL )"),
        gdl_tests::post(addr, "( ABORT m )"),
    ];
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(replies[0], "busy", "other rules");
    assert_eq!(replies[1], "ready");
    assert!(replies[2].starts_with("(mark "), "{}", replies[2]);
    assert_eq!(replies[3], "aborted");

    // Building again into the same directory is fine; over someone else's crate it is not.
    let again = gdlc()
        .arg("build")
        .arg(&kif)
        .arg("-o")
        .arg(&crate_dir)
        .status()
        .unwrap();
    assert!(again.success());
    let foreign = dir.join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("Cargo.toml"), "[package]\nname = \"mine\"\n").unwrap();
    let out = gdlc()
        .arg("build")
        .arg(&kif)
        .arg("-o")
        .arg(&foreign)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("--force"));
}

#[test]
fn compiled_engine_is_cached() {
    let (kif, reference) = tic_tac_toe();
    let cache = scratch("cli-cache");
    let trace = |cargo: Option<&str>| {
        let mut cmd = gdlc();
        cmd.arg("trace")
            .arg(&kif)
            .args(["--seed", "1", "--engine", "compiled"])
            .env("GDLC_CACHE", &cache);
        if let Some(c) = cargo {
            cmd.env("CARGO", c);
        }
        cmd.output().unwrap()
    };
    let first = trace(None);
    assert!(first.status.success(), "{}", text(&first).1);
    assert_eq!(text(&first).0, reference);
    let games: Vec<_> = std::fs::read_dir(cache.join("games")).unwrap().collect();
    assert_eq!(games.len(), 1, "one crate per description");

    // A second call must not run cargo: with no cargo to run it still works.
    let start = std::time::Instant::now();
    let second = trace(Some("/nonexistent/cargo"));
    assert!(second.status.success(), "{}", text(&second).1);
    assert_eq!(text(&second).0, reference);
    assert!(start.elapsed().as_secs_f64() < 5.0);

    let out = gdlc()
        .arg("bench")
        .arg(&kif)
        .args(["--seconds", "0.2", "--engine", "compiled"])
        .env("GDLC_CACHE", &cache)
        .env("CARGO", "/nonexistent/cargo")
        .output()
        .unwrap();
    let line = text(&out).0;
    assert!(
        line.starts_with("game=ticTacToe engine=compiled "),
        "{line}"
    );
    let out = gdlc()
        .arg("bench")
        .arg(&kif)
        .args(["--seconds", "0.2", "--engine", "compiled", "--threads", "2"])
        .env("GDLC_CACHE", &cache)
        .env("CARGO", "/nonexistent/cargo")
        .output()
        .unwrap();
    let line = text(&out).0;
    assert!(
        line.starts_with("game=ticTacToe engine=compiled threads=2 seconds="),
        "{line}"
    );

    // Another description is another crate, and a failing cargo is reported.
    let other = cache.join("other.kif");
    let source = std::fs::read_to_string(&kif).unwrap() + "\n; a comment changes the key\n";
    std::fs::write(&other, source).unwrap();
    let out = gdlc()
        .arg("trace")
        .arg(&other)
        .args(["--engine", "compiled"])
        .env("GDLC_CACHE", &cache)
        .env("CARGO", "/nonexistent/cargo")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).1.contains("cannot run /nonexistent/cargo"),
        "{}",
        text(&out).1
    );
}

#[test]
fn interpreted_bench_prints_one_line() {
    let (kif, _) = tic_tac_toe();
    let out = gdlc()
        .arg("bench")
        .arg(&kif)
        .args(["--seconds", "0.2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let (stdout, _) = text(&out);
    assert_eq!(stdout.lines().count(), 1);
    assert!(
        stdout.starts_with("game=ticTacToe engine=interpreted seconds=")
            && stdout.contains(" avg_goal x="),
        "{stdout}"
    );
    // On two threads, each with its interpreter; the goals average as on one.
    let out = gdlc()
        .arg("bench")
        .arg(&kif)
        .args(["--seconds", "0.2", "--threads", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let (stdout, _) = text(&out);
    assert!(
        stdout.starts_with("game=ticTacToe engine=interpreted threads=2 seconds="),
        "{stdout}"
    );
    let x: f64 = stdout
        .split_whitespace()
        .find_map(|f| f.strip_prefix("x="))
        .and_then(|v| v.parse().ok())
        .expect("x's average goal");
    assert!((40.0..90.0).contains(&x), "{stdout}");
}

#[test]
fn errors_are_reported_not_panics() {
    let cache = scratch("cli-errors");
    let broken = cache.join("broken.kif");
    std::fs::write(&broken, "(role x) (init (p)").unwrap();
    // `q` with two arities: invalid GDL, rejected before anything is compiled.
    let invalid = cache.join("arities.kif");
    std::fs::write(
        &invalid,
        "(role x) (init (p 1)) (q 1) (q 1 2) (<= (legal x a) (q 1) (q 1 2)) \
         (<= (next (p 1)) (does x a)) (<= terminal (true (p 1))) (goal x 100)",
    )
    .unwrap();
    for (file, engine) in [
        (&broken, "compiled"),
        (&broken, "interpreted"),
        (&invalid, "compiled"),
    ] {
        let out = gdlc()
            .arg("bench")
            .arg(file)
            .args(["--seconds", "0.1", "--engine", engine])
            .env("GDLC_CACHE", &cache)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{engine}: {}", text(&out).1);
        assert!(!text(&out).1.contains("panicked"));
    }
    let out = gdlc()
        .args(["trace", "/nonexistent.kif", "--engine", "compiled"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = gdlc()
        .arg("bench")
        .arg(tic_tac_toe().0)
        .args(["--seconds", "-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = gdlc()
        .arg("build")
        .arg(tic_tac_toe().0)
        .args(["-o"])
        .arg(cache.join("x"))
        .args(["--runtime", "/nonexistent"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("no gdl-runtime crate"));
}

/// `gdlc play FILE` builds the game's player through the cache and becomes it.
#[test]
fn play_with_a_file_runs_the_compiled_player() {
    let (kif, _) = tic_tac_toe();
    // The build cache shared by the tests' players (gdl_tests::test_cache).
    let mut command = gdl_tests::player_command(env!("CARGO_BIN_EXE_gdlc"));
    command.arg(&kif);
    let (mut child, addr) = gdl_tests::spawn_listening(&mut command);
    let rules = std::fs::read_to_string(&kif).unwrap();
    let replies = [
        gdl_tests::post(addr, "( INFO )"),
        gdl_tests::post(addr, &format!("( START m x ({rules}) 2 1 )")),
        gdl_tests::post(addr, "( PLAY m NIL )"),
        gdl_tests::post(addr, "( STOP m NIL )"),
    ];
    let _ = child.kill();
    let _ = child.wait();
    assert!(replies[0].contains("available"), "{}", replies[0]);
    assert_eq!(replies[1], "ready");
    assert!(replies[2].starts_with("(mark "), "{}", replies[2]);
    assert_eq!(replies[3], "done");
}

/// `gdlc play` without a game: the interpreter plays from START while the game is built in
/// the background; once built, the compiled game plays the rest of the match (it is told the
/// moves so far), and every move is legal. The next match of the game is played by the
/// compiled game from the cache, from its first move, after its start-clock measurements.
#[test]
fn the_universal_player_switches_to_the_compiled_game() {
    let (addr, log, _kill) = warm_universal_player();
    // The network plays while rustc builds tic-tac-toe; the match waits for the build and the
    // takeover after its first move (tic-tac-toe is solved at once, so every move is
    // answered at once).
    let mut await_build = |step| {
        if step == 2 {
            wait_for_the_build(&log);
        }
    };
    gdl_tests::play_tic_tac_toe(
        addr,
        gdl_tests::TicTacToeMatch {
            id: "u",
            start_clock: 20,
            before_play: &mut await_build,
        },
    );
    let played =
        gdl_tests::wait_for_line(&log, " by compiled (", std::time::Duration::from_secs(5));
    assert!(
        played.is_ok(),
        "the compiled game never played: {played:#?}"
    );
    // The second match: the compiled game from the cache chooses its playouts at START
    // (tic-tac-toe's checks change half the moves, and its roles take turns: anti-decisive in
    // NST's order), not uniform playouts for want of time.
    gdl_tests::play_tic_tac_toe(
        addr,
        gdl_tests::TicTacToeMatch {
            id: "v",
            start_clock: 20,
            before_play: &mut |_| {},
        },
    );
    let first = gdl_tests::wait_for_line(&log, " v step 1: ", std::time::Duration::from_secs(5));
    let first = first.expect("the first move is logged");
    let line = first.last().expect("the line found");
    assert!(
        line.contains(" by compiled (") && line.contains("anti-decisive-nst chosen"),
        "{line}"
    );
}

/// A GDL-II match of the universal player: the network plays from beliefs while the game is
/// built; once built, the compiled game is told the turns seen so far (our moves and
/// percepts) and plays the rest of the match from its own beliefs, every move legal.
#[test]
fn the_universal_player_hands_a_gdl2_match_to_the_compiled_game() {
    let (addr, log, _kill) = warm_universal_player();
    let kif =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/gdl2/blindTicTacToe.kif");
    let rules = std::fs::read_to_string(&kif).unwrap();
    let mut lines = Vec::new();
    let mut await_build = |turn| {
        if turn == 2 {
            lines.extend(wait_for_the_build(&log));
        }
    };
    gdl_tests::play_gdl2_match(
        addr,
        gdl_tests::Gdl2Match {
            id: "b",
            rules: &rules,
            role: "xplayer",
            seed: 3,
            clocks: (2, 2),
            before_play: &mut await_build,
        },
    );
    let played =
        gdl_tests::wait_for_line(&log, " by compiled (", std::time::Duration::from_secs(5));
    lines.extend(played.expect("the compiled game never played"));
    let line = lines.last().expect("the line found");
    // Its report is the beliefs' (particles). With a cold build cache (CI) the network
    // played the first turns and the compiled game caught up with them; with the game in
    // the cache already, the compiled game played from the first move.
    assert!(line.contains("particles"), "{line}");
    let by = |engine: &str| {
        lines
            .iter()
            .any(|l| l.contains(" step 1: ") && l.contains(engine))
    };
    assert!(
        by(" by propnet (") || by(" by compiled ("),
        "the first move by neither the network nor the compiled game: {lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains(" by interpreted")),
        "{lines:#?}"
    );
}

/// The universal player (`gdlc play`, with the tests' build cache) once it has warmed the
/// cache: its address, its log's lines, and its process (killed when dropped).
fn warm_universal_player() -> (
    std::net::SocketAddr,
    std::sync::mpsc::Receiver<String>,
    KillOnDrop,
) {
    let mut command = gdl_tests::player_command(env!("CARGO_BIN_EXE_gdlc"));
    let mut child = command.spawn().expect("the player starts");
    let (addr, log) = gdl_tests::listening_with_log(&mut child);
    let kill = KillOnDrop(child);
    // The first build of the runtime's HTTP stack may take minutes on a loaded machine.
    let warm = gdl_tests::wait_for_line(
        &log,
        "the build cache is ready",
        std::time::Duration::from_secs(900),
    );
    assert!(warm.is_ok(), "no warm-up: {warm:#?}");
    (addr, log, kill)
}

/// Waits until the log says the match's game is built and its engine has taken over (the
/// player looks at the build between requests, a quarter of a second apart when it has
/// nothing to ponder: a PLAY sent at once would leave it too little of the move to take
/// over during it); returns the lines read meanwhile.
fn wait_for_the_build(log: &std::sync::mpsc::Receiver<String>) -> Vec<String> {
    let built = gdl_tests::wait_for_line(
        log,
        "the compiled game is ready",
        std::time::Duration::from_secs(900),
    );
    assert!(built.is_ok(), "the game was not built: {built:#?}");
    let mut lines = built.unwrap_or_default();
    let launched = gdl_tests::wait_for_line(
        log,
        "the compiled game plays from step",
        std::time::Duration::from_secs(60),
    );
    assert!(
        launched.is_ok(),
        "the compiled game did not take over: {launched:#?}"
    );
    lines.extend(launched.unwrap_or_default());
    lines
}

/// A child process killed when dropped (also when a test fails).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn timings_name_every_pass_and_the_peak_memory() {
    let kif = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ticTacToe.kif");
    let dir = scratch("timings");
    let emit = gdlc()
        .args(["emit", "--timings"])
        .arg(&kif)
        .output()
        .expect("gdlc runs");
    let build = gdlc()
        .args(["build", "--timings", "-o"])
        .arg(dir.join("crate"))
        .arg(&kif)
        .output()
        .expect("gdlc runs");
    for out in [emit, build] {
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{stderr}");
        assert!(
            !stdout.contains("peak memory"),
            "timings go to standard error"
        );
        assert!(stderr.starts_with("gdlc: timings of "), "{stderr}");
        for pass in [
            "parse",
            "check",
            "normalise",
            "ground",
            "lower",
            "optimise",
            "generate",
            "total",
        ] {
            let line = stderr
                .lines()
                .find(|l| l.trim_start().starts_with(pass))
                .unwrap_or_else(|| panic!("no `{pass}` line in {stderr}"));
            assert!(line.trim_end().ends_with(" s"), "{line}");
        }
        let peak = stderr
            .lines()
            .find(|l| l.trim_start().starts_with("peak memory"))
            .unwrap_or_else(|| panic!("no peak memory line in {stderr}"));
        let mib: f64 = peak
            .split_whitespace()
            .nth(2)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no amount in `{peak}`"));
        assert!(mib > 0.0 && peak.ends_with("MiB"), "{peak}");
        // Standard error is not a terminal here: no progress bar drawn.
        assert!(
            !stderr.contains('\x1b') && !stderr.contains('\r'),
            "{stderr:?}"
        );
    }
}
