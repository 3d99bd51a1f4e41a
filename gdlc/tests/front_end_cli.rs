//! One front end behind every command: infix files are read as infix by every command, the
//! interpreter's entry runs the checker, a syntax error is the only error shown, and a reader
//! that closes the pipe early ends a command quietly. Needs no corpus.

use gdl_tests::example;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn gdlc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .env("GDLC_CACHE", scratch("cache"))
        .output()
        .expect("gdlc runs")
}

fn scratch(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("front-end-cli")
        .join(name)
}

fn file(name: &str, text: &str) -> String {
    let path = scratch(name);
    std::fs::create_dir_all(path.parent().unwrap()).expect("scratch directory");
    std::fs::write(&path, text).expect("scratch file");
    path.display().to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn infix_files_are_read_as_infix_by_every_command() {
    let (kif, hrf) = (example("ticTacToe.kif"), example("ticTacToe.hrf"));
    for args in [
        vec!["trace", "--seed", "3"],
        vec!["dump", "--emit", "strata"],
        vec!["check"],
    ] {
        let of = |file: &str| {
            let mut a = args.clone();
            a.push(file);
            let out = gdlc(&a);
            assert!(
                out.status.success(),
                "{args:?} {file}: {}",
                text(&out.stderr)
            );
            text(&out.stdout).replace(".hrf", ".kif")
        };
        assert_eq!(of(&kif), of(&hrf), "{args:?}");
    }
    // Code generation reads the infix file too (it used to parse it as KIF and fail).
    let out = gdlc(&["emit", &hrf]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("impl Game for TicTacToe {"));
    assert!(text(&out.stdout).contains("from ticTacToe.hrf"));
}

/// `gdlc dump --emit` prints the output of every pass; the default is the optimised IR.
#[test]
fn dump_prints_the_output_of_every_pass() {
    let kif = example("ticTacToe.kif");
    let emits = [
        "ast",
        "strata",
        "normalised",
        "projected",
        "ground",
        "ir",
        "optimised",
        "rust",
    ];
    let mut seen = Vec::new();
    for emit in emits {
        let out = gdlc(&["dump", "--emit", emit, &kif]);
        assert!(out.status.success(), "{emit}: {}", text(&out.stderr));
        let printed = text(&out.stdout);
        assert!(!printed.trim().is_empty(), "{emit} printed nothing");
        // (Projection may change nothing: tic-tac-toe has no inert argument nor local variable.)
        if emit != "projected" {
            assert!(
                !seen.contains(&printed),
                "{emit} printed what another emit did"
            );
        }
        seen.push(printed);
    }
    assert!(
        seen[2].contains("(<= (legal ") && seen[2].starts_with("; "),
        "{}",
        seen[2]
    );
    assert!(seen[5].contains("p0 = "), "{}", seen[5]);
    let default = gdlc(&["dump", &kif]);
    assert_eq!(
        text(&default.stdout),
        seen[6],
        "the default is the optimised IR"
    );
    let out = gdlc(&["dump", "--emit", "lowered", &kif]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown output is a usage error"
    );
}

#[test]
fn the_interpreter_entry_runs_the_checker() {
    // `q` is unsafe: ?x appears in no positive literal. The checker rejects the description, so
    // `trace` must not play it.
    let path = file(
        "unsafe.kif",
        "(role r) (init s) (<= (q ?x) (true s)) (<= (legal r m) (q 1)) \
         (<= (next s) (does r m)) (<= terminal (not (true s))) (goal r 100)",
    );
    let out = gdlc(&["trace", &path]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("unsafe"),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).is_empty(), "{}", text(&out.stdout));
}

#[test]
fn compiling_prints_the_warnings_with_their_place() {
    // `spare` is defined and never used: the checker warns; the game still compiles.
    let path = file(
        "spare.kif",
        "(role r) (init s)\n(<= (spare ?x) (true ?x))\n(<= (legal r m) (true s))\n\
         (<= (next s) (does r m)) (<= terminal (not (true s))) (goal r 100)",
    );
    let out = gdlc(&["emit", &path]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("impl Game for"));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("unused-relation"), "{stderr}");
    assert!(stderr.contains("spare.kif:2:6"), "{stderr}");
}

#[test]
fn an_unclosed_parenthesis_is_the_first_and_only_error() {
    let path = file(
        "unclosed.kif",
        "(role x)\n(init (cell 1))\n(<= (legal x m) (true (cell 1))\n(goal x 100)\n",
    );
    let out = gdlc(&["check", "--format", "short", &path]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.contains("unclosed.kif:3:1: error"), "{stderr}");
    assert!(!stderr.contains("never defines"), "{stderr}");
}

/// Runs `gdlc args`, reads `keep` bytes of its output and closes the pipe.
fn read_then_close(args: &[&str], keep: usize) -> (Option<i32>, String, Vec<u8>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gdlc runs");
    let mut head = vec![0; keep];
    let mut stdout = child.stdout.take().expect("stdout");
    stdout.read_exact(&mut head).expect("some output");
    drop(stdout);
    let out = child.wait_with_output().expect("gdlc ends");
    (out.status.code(), text(&out.stderr), head)
}

#[test]
fn a_closed_pipe_ends_commands_quietly() {
    // Enough output that the writes outlive the reader (pipe buffers hold 64 KiB).
    let rules: String = (0..20_000)
        .map(|i| format!("(<= (p{i} ?x) (q ?x))\n"))
        .collect();
    let big = file("big.kif", &rules);
    let game = file(
        "long.kif",
        "(role r) (init (c 0)) (succ 0 1) (<= (succ ?x (s ?x)) (true (c ?x)))\
         (legal r go) (<= (next (c ?y)) (true (c ?x)) (succ ?x ?y)) \
         (<= terminal (true (c stop))) (goal r 0)",
    );
    for args in [
        vec!["fmt", big.as_str()],
        vec!["fmt", "--to", "infix", big.as_str()],
        vec!["trace", "--max-steps", "3000", game.as_str()],
    ] {
        let (code, stderr, head) = read_then_close(&args, 10);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(!head.is_empty());
    }
}

#[test]
fn a_trace_is_written_as_it_is_played_and_stops_at_the_step_limit() {
    // The counter grows a term a step and never ends.
    let game = file(
        "endless.kif",
        "(role r) (init (c 0)) (legal r go) (<= (next (c (s ?x))) (true (c ?x))) \
         (<= terminal (true (c stop))) (goal r 0)",
    );
    let out = gdlc(&["trace", "--max-steps", "50", &game]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("step 50\n"), "{stdout}");
    assert!(
        text(&out.stderr).contains("no terminal state after 50 steps"),
        "{}",
        text(&out.stderr)
    );
}

/// `gdlc ARGS` with `input` on standard input.
fn gdlc_with_input(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .env("GDLC_CACHE", scratch("cache"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gdlc runs");
    let mut stdin = child.stdin.take().expect("piped");
    stdin.write_all(input.as_bytes()).expect("written");
    drop(stdin);
    child.wait_with_output().expect("gdlc ends")
}

#[test]
fn check_and_fmt_read_standard_input_under_the_stdin_name() {
    let broken = "(role x)\n(<= (legal x a) (true p)\n";
    let out = gdlc_with_input(
        &[
            "check",
            "--format",
            "short",
            "-",
            "--stdin-name",
            "games/g.kif",
        ],
        broken,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("games/g.kif:2:1: error[syntax]"), "{err}");
    assert_eq!(text(&out.stdout), "games/g.kif: 1 error\n");
    // Without a name, standard input is `<stdin>`.
    let tictactoe = std::fs::read_to_string(example("ticTacToe.kif")).expect("example");
    let out = gdlc_with_input(&["check", "-"], &tictactoe);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "<stdin>: ok\n");

    // The name's extension gives the syntax: the same infix text is KIF errors by another name.
    let infix = "role(x)\nlegal(x, a)   % a comment\nterminal :- true(p)\ngoal(x,100)\ninit(p)\n";
    let out = gdlc_with_input(&["fmt", "-", "--stdin-name", "g.hrf", "--to", "kif"], infix);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let kif = text(&out.stdout);
    assert!(kif.contains("(role x)\n"), "{kif}");
    assert!(kif.contains("; a comment\n(legal x a)\n"), "{kif}");
    assert!(kif.contains("(<= terminal\n    (true p))"), "{kif}");
    // Named `.kif`, `role(x)` is the constant `role` and the term `(x)`.
    let out = gdlc_with_input(&["fmt", "-", "--stdin-name", "g.kif"], "role(x)\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "role\n\nx\n");
    assert!(
        text(&out.stderr).contains("g.kif:1:5"),
        "{}",
        text(&out.stderr)
    );
}
