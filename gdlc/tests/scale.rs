//! Reading, checking and reporting stay near-linear on generated pathological inputs: each
//! input is checked by the `gdlc` command within a generous time bound (a guard against a
//! return to quadratic behaviour), with the first diagnostic and the capped count asserted.
//! The 50 MB inputs run with `--ignored`.
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn file(name: &str, text: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gdlc-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temporary file");
    path
}

/// Runs `gdlc <cmd> <file>`, asserts it finished within `bound`, returns (stdout, stderr).
fn run(cmd: &str, name: &str, text: &[u8], bound: Duration) -> (String, String) {
    let path = file(name, text);
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args([cmd, path.to_str().expect("utf-8 path")])
        .output()
        .expect("gdlc runs");
    let took = start.elapsed();
    assert!(took < bound, "gdlc {cmd} {name} took {took:?}");
    let _ = std::fs::remove_file(&path);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const BOUND: Duration = Duration::from_secs(20);

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// At most `DEFAULT_CAP` rendered diagnostics, then one count line.
fn assert_capped(stderr: &str, name: &str, more: &str) {
    let heads = stderr
        .lines()
        .filter(|l| {
            l.contains("error[")
                || l.contains("warning[")
                || l.contains("] Error:")
                || l.contains("] Warning:")
        })
        .count();
    assert!(
        heads > 0 && heads <= gdlc::diag::DEFAULT_CAP,
        "{heads} diagnostics shown"
    );
    let last = stderr.lines().last().unwrap_or("");
    assert_eq!(
        last,
        format!("{name}: {more}"),
        "{}",
        &stderr[stderr.len().saturating_sub(500)..]
    );
}

#[test]
fn unclosed_parentheses() {
    let (out, err) = run("check", "open.kif", &vec![b'('; 100_000], BOUND);
    assert!(out.ends_with("open.kif: 100001 errors\n"), "{out}");
    assert!(
        err.contains("this `(` is never closed"),
        "{}",
        first_line(&err)
    );
    assert_capped(
        &err,
        &format!("{}", file("open.kif", b"").display()),
        "... and 99901 more errors (0 warnings)",
    );
}

#[test]
fn lines_of_closing_parentheses() {
    let (out, err) = run(
        "check",
        "close.kif",
        ")\n".repeat(100_000).as_bytes(),
        BOUND,
    );
    assert!(out.ends_with("close.kif: 100000 errors\n"), "{out}");
    assert!(err.contains("unmatched `)`"));
    assert_capped(
        &err,
        &format!("{}", file("close.kif", b"").display()),
        "... and 99900 more errors (0 warnings)",
    );
}

#[test]
fn closing_parentheses_on_one_line_are_rendered_clipped() {
    let (out, err) = run("fmt", "line.kif", &vec![b')'; 200_000], BOUND);
    assert!(out.is_empty());
    // Every shown diagnostic quotes at most a clipped part of the 200 000-byte line.
    assert!(err.lines().all(|l| l.len() < 400), "a line is not clipped");
    assert!(err.contains("unmatched `)`"));
    assert!(
        err.contains("... and 199900 more errors (0 warnings)"),
        "{}",
        &err[err.len().saturating_sub(300)..]
    );
}

#[test]
fn empty_parentheses_facts() {
    let (out, err) = run(
        "check",
        "facts.kif",
        "(foo)\n".repeat(100_000).as_bytes(),
        BOUND,
    );
    assert!(
        out.ends_with("facts.kif: 4 errors, 100001 warnings\n"),
        "{out}"
    );
    assert!(err.contains("empty-parentheses"));
    assert!(err.contains("... and 4 more errors (99901 warnings)"));
}

#[test]
fn unsafe_rules() {
    let text: String = (0..20_000)
        .map(|i| format!("(<= (p{i} ?x) (q ?y))\n"))
        .collect();
    let (out, err) = run("check", "unsafe.kif", text.as_bytes(), BOUND);
    assert!(
        out.ends_with("unsafe.kif: 4 errors, 40001 warnings\n"),
        "{out}"
    );
    assert!(err.contains("unsafe-variable"));
    assert!(
        err.contains("... and 4 more errors (39901 warnings)"),
        "{}",
        &err[err.len().saturating_sub(300)..]
    );
}

/// 50 MB of pseudo-random bytes (SplitMix64, so the input is the same on every run).
#[test]
fn random_bytes_50_mb() {
    let mut x: u64 = 1;
    let bytes: Vec<u8> = (0..50 << 20)
        .map(|_| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u8
        })
        .collect();
    for cmd in ["check", "fmt", "trace"] {
        let (_, err) = run(cmd, "random.kif", &bytes, Duration::from_secs(30));
        assert!(
            err.contains("more errors"),
            "{cmd}: {}",
            &err[err.len().saturating_sub(300)..]
        );
    }
}

#[test]
fn repeated_tic_tac_toe_50_mb() {
    let game = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/ticTacToe.kif"
    ))
    .expect("example");
    let text = game.repeat((50 << 20) / game.len() + 1);
    let (out, _) = run("check", "ttt.kif", text.as_bytes(), Duration::from_secs(30));
    assert!(out.ends_with("ttt.kif: ok\n"), "{out}");
    let (out, _) = run("fmt", "ttt.kif", text.as_bytes(), Duration::from_secs(30));
    // Comments are kept: the first rule follows the file's opening comment.
    assert!(
        out.starts_with("; Tic-Tac-Toe") && out.contains("\n(role x)\n"),
        "{}",
        &out[..300.min(out.len())]
    );
}
