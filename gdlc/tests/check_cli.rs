//! `gdlc check` as a command: exit codes, where the output goes, its formats.
use std::path::PathBuf;
use std::process::{Command, Output};

const GOOD: &str = "(role r)\n(init s)\n(legal r m)\n(<= (next s) (does r m))\n(<= terminal (true s))\n(goal r 100)\n";

/// Writes `text` to a fresh file named `name` in a directory of this test run.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gdlc-check-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temporary file");
    path
}

fn gdlc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .output()
        .expect("gdlc runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_valid_game_exits_0_with_its_warnings() {
    let path = file("good.kif", &format!("{GOOD}(unused 1)\n"));
    let out = gdlc(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("good.kif: ok (1 warning)"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("unused-relation"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn errors_exit_1_with_file_line_and_column() {
    let path = file(
        "bad.kif",
        &format!("{GOOD}(<= (legal r (m ?x)) (p 1))\n(p 1)\n"),
    );
    let p = path.to_str().unwrap();
    let out = gdlc(&["check", p]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("{p}:7:17")), "{stderr}");
    assert!(stderr.contains("(<= (legal r (m ?x)) (p 1))"), "{stderr}");
    assert!(
        text(&out.stdout).contains("bad.kif: 1 error"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn short_format_prints_one_line_per_diagnostic() {
    let path = file(
        "short.kif",
        &format!("{GOOD}(<= (legal r (m ?x)) (p 1))\n(p 1)\n(q 1)\n"),
    );
    let p = path.to_str().unwrap();
    let out = gdlc(&["check", "--format", "short", p]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with(&format!("{p}:7:17: error[unsafe-variable]")),
        "{stderr}"
    );
    assert!(
        lines[1].starts_with(&format!("{p}:9:2: warning[unused-relation]")),
        "{stderr}"
    );
}

#[test]
fn quiet_prints_only_errors() {
    let warn = file("warn.kif", &format!("{GOOD}(q 1)\n"));
    let bad = file("quiet_bad.kif", &format!("{GOOD}(q 1)\n(true s)\n"));
    let out = gdlc(&[
        "check",
        "--quiet",
        "--format",
        "short",
        warn.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("warning"), "{stderr}");
    assert!(stderr.contains("error[keyword-in-head]"), "{stderr}");
    let stdout = text(&out.stdout);
    assert!(!stdout.contains("warn.kif"), "{stdout}");
    assert!(
        stdout.contains("quiet_bad.kif: 1 error, 1 warning"),
        "{stdout}"
    );
}

#[test]
fn usage_and_io_problems_exit_2() {
    assert_eq!(gdlc(&["check"]).status.code(), Some(2));
    let good = file("also_good.kif", GOOD);
    let out = gdlc(&["check", good.to_str().unwrap(), "/nonexistent/game.kif"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).contains("also_good.kif: ok"));
    assert_eq!(
        gdlc(&["check", "--format", "fancy", good.to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn syntax_errors_and_empty_files_are_reported() {
    let broken = file("broken.kif", "(role r\n");
    let empty = file("empty.kif", "");
    let out = gdlc(&[
        "check",
        "--format",
        "short",
        broken.to_str().unwrap(),
        empty.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("error[syntax]"), "{stderr}");
    assert!(
        stderr.contains("empty.kif:1:1: error[missing-relation]"),
        "{stderr}"
    );
    // The human format renders an empty file too.
    let out = gdlc(&["check", empty.to_str().unwrap()]);
    assert!(
        text(&out.stderr).contains("missing-relation"),
        "{}",
        text(&out.stderr)
    );
}

/// A game whose relations form a chain of `links` rules, `(<= (p1) (p0)) (<= (p2) (p1)) ...`,
/// its end the terminal test.
fn chain(links: usize) -> String {
    let mut text = GOOD.replace("(<= terminal (true s))\n", "");
    text.push_str("(p0)\n");
    for i in 0..links {
        text.push_str(&format!("(<= (p{}) (p{i}))\n", i + 1));
    }
    text.push_str(&format!("(<= terminal (p{links}))\n"));
    text
}

/// The strongly connected components of a chain of 200,000 rules overflowed the main
/// thread's stack (8 MiB) when they were found by recursion; `gdl_interp::scc` walks without.
#[test]
fn a_chain_of_200000_rules_is_checked_without_overflow() {
    let path = file("chain.kif", &chain(200_000));
    let out = gdlc(&["check", "--format", "short", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("chain.kif: ok"),
        "{}",
        text(&out.stdout)
    );
}
