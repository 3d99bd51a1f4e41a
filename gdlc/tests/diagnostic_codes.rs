//! The registry of diagnostic codes (`gdlc::diag::codes`): every code is documented, every
//! example the registry checks gets its code from the front end with the registered severity,
//! and `gdlc explain` prints them.

use std::process::Command;

use gdlc::diag::codes::{self, Example};
use gdlc::{CheckOptions, Source};

#[test]
fn codes_are_unique_sorted_and_explained() {
    let names: Vec<&str> = codes::ALL.iter().map(|c| c.name).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        names, sorted,
        "codes must be unique and in alphabetical order"
    );
    for code in codes::ALL {
        assert!(
            code.explanation.len() > 40
                && (code.explanation.ends_with('.') || code.explanation.ends_with(".)")),
            "{}: the explanation should be a paragraph",
            code.name
        );
        assert_eq!(codes::lookup(code.name), Some(*code));
    }
    assert_eq!(codes::lookup("no-such-code"), None);
}

#[test]
fn every_checked_example_is_reported_with_its_code_and_severity() {
    let mut checked = 0;
    for code in codes::ALL {
        let Example::Checked(src) = code.example else {
            continue;
        };
        checked += 1;
        let analysis =
            gdlc::frontend::analyse(Source::new("example.kif", src), &CheckOptions::default());
        let found: Vec<_> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.code == code.name)
            .collect();
        assert!(
            !found.is_empty(),
            "the example of `{}` is not reported with it; reported: {:?}",
            code.name,
            analysis
                .diagnostics
                .iter()
                .map(|d| d.code)
                .collect::<Vec<_>>()
        );
        assert!(
            found.iter().all(|d| d.severity == code.severity),
            "`{}` is reported with another severity than registered",
            code.name
        );
    }
    assert!(checked >= 25, "only {checked} examples are checked");
}

fn gdlc(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .output()
        .expect("gdlc runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn explain_prints_a_code_and_lists_them_all() {
    let (ok, out, _) = gdlc(&["explain", "unsafe-variable"]);
    assert!(ok);
    assert!(out.starts_with("unsafe-variable (error)\n"), "{out}");
    assert!(out.contains("positive literal"), "{out}");
    assert!(out.contains("(<= (p ?x) (not (q ?x)))"), "{out}");

    let (ok, out, _) = gdlc(&["explain", "[role-variable]"]);
    assert!(ok && out.starts_with("role-variable (warning)"), "{out}");

    let (ok, out, _) = gdlc(&["explain"]);
    assert!(ok);
    assert_eq!(out.lines().count(), codes::ALL.len(), "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("negative-cycle ")),
        "{out}"
    );

    let (ok, _, err) = gdlc(&["explain", "no-such-code"]);
    assert!(!ok);
    assert!(
        err.contains("`no-such-code` is not a diagnostic code"),
        "{err}"
    );
}
