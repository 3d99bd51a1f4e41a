//! Every corpus game survives KIF -> infix -> KIF and KIF -> pretty KIF unchanged, comments
//! included, and the `gdlc fmt` command converts both ways.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gdlc::infix::parse_infix;
use gdlc::print::{pretty_infix, pretty_kif, same_rules};
use gdlc::{Diagnostic, Program};

/// The corpus (`$GDL_CORPUS`, default `../shared` beside the repository), if it is there.
fn corpus() -> Option<PathBuf> {
    gdl_tests::corpus_path("roundtrip", "games").map(|_| gdl_tests::corpus_dir())
}

fn errors(diags: &[Diagnostic]) -> Vec<&Diagnostic> {
    diags.iter().filter(|d| d.is_error()).collect()
}

/// Parses `text` with `parse`, which must succeed.
fn reparse(
    path: &Path,
    what: &str,
    text: &str,
    parse: fn(&str) -> (Program, Vec<Diagnostic>),
) -> Program {
    let (program, diags) = parse(text);
    let errs = errors(&diags);
    if let Some(e) = errs.first() {
        let at = e.span.start as usize;
        let near = &text[at.saturating_sub(80).min(text.len())..(at + 80).min(text.len())];
        panic!(
            "{}: {what} does not read back: {e:?}\nnear: {near}",
            path.display()
        );
    }
    program
}

/// The program's comments: each one's text and the index of the rule it belongs to.
fn comments(program: &Program) -> Vec<(&str, usize)> {
    let comments = program.comments.iter();
    comments.map(|c| (c.text.as_str(), c.rule)).collect()
}

#[test]
fn every_corpus_game_round_trips() {
    let Some(corpus) = corpus() else { return };
    let (mut n, mut n_comments) = (0, 0);
    for dir in ["games/ggp-repository", "games/ggp-base-tests"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus.join(dir))
            .expect("corpus present")
            .map(|e| e.expect("directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "kif"))
            .collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).expect("readable");
            let text = String::from_utf8_lossy(&bytes);
            let (original, diags) = parse_kif(&text);
            assert!(errors(&diags).is_empty(), "{}: {diags:?}", path.display());

            let infix = pretty_infix(&original);
            let from_infix = reparse(&path, "the infix text", &infix, parse_infix);
            assert!(
                same_rules(&original, &from_infix),
                "{}: KIF -> infix -> KIF",
                path.display()
            );

            let kif = pretty_kif(&original);
            let from_kif = reparse(&path, "the pretty KIF", &kif, parse_kif);
            assert!(
                same_rules(&original, &from_kif),
                "{}: KIF -> pretty KIF",
                path.display()
            );

            // The same comment texts, in the same order, with the same rules (so the same
            // multiset of texts).
            let kept = comments(&original);
            assert_eq!(
                kept,
                comments(&from_infix),
                "{}: comments after KIF -> infix -> KIF",
                path.display()
            );
            assert_eq!(
                kept,
                comments(&from_kif),
                "{}: comments after KIF -> pretty KIF",
                path.display()
            );
            n_comments += kept.len();

            let again = pretty_infix(&from_infix);
            assert_eq!(
                infix,
                again,
                "{}: infix printing is not stable",
                path.display()
            );
            let again = pretty_kif(&from_kif);
            assert_eq!(kif, again, "{}: KIF printing is not stable", path.display());
            n += 1;
        }
    }
    assert!(n > 280, "only {n} games");
    assert!(n_comments > 5000, "only {n_comments} comments");
}

/// A fresh directory under the system's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gdlc-roundtrip-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn gdlc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .output()
        .expect("gdlc runs")
}

const GAME: &str = "; a small game\n(role robot)\n(init (cell 1 B))\n\
    (<= (legal robot (move ?x++)) (true (cell ?x++ ?Y)) (not (distinct ?Y B)))\n\
    (<= (next (cell 2 ?y)) (or (does robot (move 1)) (true (cell -3 ?y))))\n\
    (<= terminal (true (cell 2 B)))\n(<= (goal robot 100))\n";

#[test]
fn fmt_converts_to_infix_and_back() {
    let dir = temp_dir("convert");
    let kif = dir.join("game.kif");
    let hrf = dir.join("game.hrf");
    let back = dir.join("back.kif");
    std::fs::write(&kif, GAME).expect("write");
    let to_infix = gdlc(&[
        "fmt",
        "--to",
        "infix",
        kif.to_str().unwrap(),
        "-o",
        hrf.to_str().unwrap(),
    ]);
    assert!(
        to_infix.status.success(),
        "{}",
        String::from_utf8_lossy(&to_infix.stderr)
    );
    let infix = std::fs::read_to_string(&hrf).expect("infix written");
    assert!(infix.contains("legal(robot,move(?'x++')) :-"), "{infix}");
    assert!(infix.contains("~distinct(?Y,'B')"), "{infix}");

    let to_prefix = gdlc(&[
        "fmt",
        "--to",
        "prefix",
        hrf.to_str().unwrap(),
        "-o",
        back.to_str().unwrap(),
    ]);
    assert!(
        to_prefix.status.success(),
        "{}",
        String::from_utf8_lossy(&to_prefix.stderr)
    );
    let (original, _) = parse_kif(GAME);
    let (converted, diags) = parse_kif(&std::fs::read_to_string(&back).expect("KIF written"));
    assert!(diags.is_empty(), "{diags:?}");
    assert!(same_rules(&original, &converted));

    // Reformatting without --to keeps the syntax; without -o it writes to stdout.
    let same = gdlc(&["fmt", hrf.to_str().unwrap()]);
    assert!(same.status.success());
    assert_eq!(String::from_utf8_lossy(&same.stdout), infix);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fmt_reports_every_syntax_error_and_exits_1() {
    let dir = temp_dir("errors");
    let bad = dir.join("bad.hrf");
    std::fs::write(
        &bad,
        "role(x)\np(X) :- q(X) & .\nr(X :- s\nt(a) :- u(a) v\n",
    )
    .expect("write");
    let out = gdlc(&["fmt", "--to", "prefix", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing is written on errors");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for at in ["bad.hrf:2:16", "bad.hrf:3:5", "bad.hrf:4:14"] {
        assert!(stderr.contains(at), "{at} in {stderr}");
    }

    let missing = gdlc(&["fmt", dir.join("missing.kif").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    let usage = gdlc(&["fmt", "--to", "cobol", bad.to_str().unwrap()]);
    assert_eq!(usage.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_tic_tac_toe_examples_are_the_same_game() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let read = |name: &str| std::fs::read_to_string(examples.join(name)).expect("example present");
    let (kif, kif_diags) = parse_kif(&read("ticTacToe.kif"));
    let (infix, infix_diags) = parse_infix(&read("ticTacToe.hrf"));
    assert!(
        kif_diags.is_empty() && infix_diags.is_empty(),
        "{kif_diags:?} {infix_diags:?}"
    );
    assert_eq!(kif.rules.len(), 47);
    assert!(same_rules(&kif, &infix));
}

#[test]
fn fmt_keeps_the_comments_of_tic_tac_toe() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ticTacToe.kif");
    let source = std::fs::read_to_string(&path).expect("example present");
    let lines = |text: &str| -> Vec<String> {
        let comments = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix(';'));
        comments.map(str::to_string).collect()
    };
    let expected = lines(&source);
    assert!(expected[0].contains("Tic-Tac-Toe"), "{expected:?}");
    let pretty = gdlc(&["fmt", path.to_str().unwrap()]);
    assert!(pretty.status.success());
    let pretty = String::from_utf8_lossy(&pretty.stdout).into_owned();
    assert_eq!(lines(&pretty), expected);

    let dir = temp_dir("comments");
    let hrf = dir.join("ticTacToe.hrf");
    let to_infix = gdlc(&["fmt", "--to", "infix", path.to_str().unwrap()]);
    assert!(to_infix.status.success());
    let infix = String::from_utf8_lossy(&to_infix.stdout).into_owned();
    assert!(infix.starts_with("% Tic-Tac-Toe"), "{infix}");
    std::fs::write(&hrf, &infix).expect("write");
    let back = gdlc(&["fmt", "--to", "prefix", hrf.to_str().unwrap()]);
    assert!(back.status.success());
    assert_eq!(String::from_utf8_lossy(&back.stdout), pretty);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The KIF reader of the front end.
fn parse_kif(text: &str) -> (gdlc::Program, Vec<Diagnostic>) {
    gdlc::Syntax::Kif.parse(text)
}
