//! `gdlc lsp` in a real editor: Neovim (0.7 or later, headless) opens the tic-tac-toe example
//! with a misspelt relation and an unindented line, attached to the server as a user's
//! configuration attaches it (`fixtures/neovim.lua` drives it and reports what the editor
//! saw). Skipped, with a line, when `nvim` is not installed.

mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::scratch;

/// Whether `nvim` runs.
fn has_neovim() -> bool {
    Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn neovim_shows_errors_quick_fixes_hover_definitions_and_formatting() {
    if !has_neovim() {
        eprintln!("nvim is not installed: skipping the Neovim check of `gdlc lsp`");
        return;
    }
    let example = std::fs::read_to_string(gdl_tests::example("ticTacToe.kif")).expect("example");
    let mut lines: Vec<String> = example.lines().map(str::to_string).collect();
    // Line 20 (`(index ?m)`) misspelt, line 21 (`(index ?n))`) not indented.
    assert_eq!(lines[19], "    (index ?m)");
    assert_eq!(lines[20], "    (index ?n))");
    lines[19] = "    (indx ?m)".into();
    lines[20] = "(index ?n))".into();
    let file = scratch("neovim", "ticTacToe.kif");
    std::fs::write(&file, lines.join("\n") + "\n").expect("scratch file");
    let out = scratch("neovim", "report.json");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/neovim.lua");

    let mut nvim = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {script}"))
        .env("GDLC", env!("CARGO_BIN_EXE_gdlc"))
        .env("GDLC_NVIM_FILE", &file)
        .env("GDLC_NVIM_OUT", &out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nvim starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    while nvim.try_wait().expect("nvim's status").is_none() {
        if Instant::now() > deadline {
            let _ = nvim.kill();
            let _ = nvim.wait();
            panic!("Neovim did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }

    let text = std::fs::read_to_string(&out).expect("Neovim wrote its report");
    let report: Value = serde_json::from_str(&text).expect("the report is JSON");
    assert_eq!(report.get("error"), None, "{report:#}");
    assert_eq!(report["initialized"], true, "{report:#}");
    // Live errors, located, with their code.
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 1, "{report:#}");
    assert_eq!(diagnostics[0]["code"], "undefined-relation");
    assert_eq!(
        (&diagnostics[0]["line"], &diagnostics[0]["col"]),
        (&19.into(), &5.into())
    );
    // The quick fix, applied by the editor, and the warning taken back.
    assert_eq!(report["actions"][0], "Replace `indx` with `index`");
    assert_eq!(report["fixed_line"], "    (index ?m)");
    assert_eq!(report["cleared"], true, "{report:#}");
    // Hover and go to definition on `line`.
    let hover = report["hover"].as_str().unwrap_or_default();
    assert!(hover.contains("`line`, arity 1"), "{hover}");
    assert!(hover.contains("3 rules define it"), "{hover}");
    assert_eq!(
        report["definitions"],
        serde_json::json!(["(<= (line ?x)", "(<= (line ?x)", "(<= (line ?x)"])
    );
    // Formatting indents the line again; semantic tokens come in fives.
    assert_eq!(report["formatted_line"], "    (index ?n))", "{report:#}");
    let tokens = report["semantic_tokens"].as_u64().unwrap_or(0);
    assert!(tokens > 0 && tokens % 5 == 0, "{tokens}");
    assert_eq!(report["stopped"], true, "{report:#}");
}
