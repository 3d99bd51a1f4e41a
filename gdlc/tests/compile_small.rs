//! Compiles a handful of small games into one scratch cargo crate, builds it once, plays a
//! seeded trace of each through the generated code and compares it byte for byte with the
//! reference trace. Every game is compiled twice: with the backend the compiler chooses (the
//! inline code, for games this small) and with the propnet backend.
//!
//! The corpus is read from `$GDL_CORPUS` (default `../../shared` relative to this crate). The
//! scratch crate lives in cargo's temporary directory for integration tests and keeps its own
//! target directory, so a second run only rebuilds what changed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `(corpus, game)` pairs: `<corpus>/games/<dir>/<game>.kif`.
const GAMES: &[(&str, &str)] = &[
    ("ggp-repository", "ticTacToe"),
    ("ggp-repository", "connectFour"),
    ("ggp-base-tests", "test_case_1a"),
    ("ggp-base-tests", "test_case_1b"),
    ("ggp-base-tests", "test_case_2a"),
    ("ggp-base-tests", "test_case_2b"),
    ("ggp-base-tests", "test_case_2c"),
    ("ggp-base-tests", "test_case_3a"),
    ("ggp-base-tests", "test_case_3b"),
    ("ggp-base-tests", "test_case_3c"),
    ("ggp-base-tests", "test_case_3d"),
    ("ggp-base-tests", "test_case_3e"),
    ("ggp-base-tests", "test_case_3f"),
    ("ggp-base-tests", "test_case_4a"),
    ("ggp-base-tests", "test_case_5a"),
    ("ggp-base-tests", "test_case_5b"),
    ("ggp-base-tests", "test_case_5c"),
    ("ggp-base-tests", "test_case_5d"),
    ("ggp-base-tests", "test_case_5e"),
    ("ggp-base-tests", "test_clean_not_distinct"),
    ("ggp-base-tests", "test_distinct_beginning_rule"),
    ("ggp-base-tests", "simpleMutex"),
];

/// Games whose reference trace departs from the GDL specification (see
/// `spec/trace-format.md`): their compiled trace is compared with the interpreter's only.
/// `test_case_3f`: the reference answers `undef` for roles whose goal the rules define.
const REFERENCE_DIFFERS: &[&str] = &["test_case_3f"];

fn interpreter_trace(source: &str) -> String {
    let (program, _) = gdlc::parse_kif(source);
    let game = gdlc::interp::Interpreter::new(&program).expect("the interpreter accepts the game");
    let mut s = String::new();
    let options = gdl_runtime::trace::TraceOptions {
        seed: 1,
        max_steps: 100_000,
    };
    if let Err(e) = gdl_runtime::trace::write_trace(&game, &options, &mut s) {
        s.push_str(&format!("error: {e}\n"));
    }
    s
}

fn corpus() -> PathBuf {
    match std::env::var_os("GDL_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// Writes `contents` unless the file already holds it (keeps cargo's fingerprints fresh).
fn write_if_changed(path: &Path, contents: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(contents) {
        std::fs::write(path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }
}

#[test]
fn compiled_small_games_reproduce_reference_traces() {
    let corpus = corpus();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("compile_small");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gdl-runtime");
    let runtime = runtime.canonicalize().unwrap();
    write_if_changed(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"compile-small\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[dependencies]\ngdl-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            runtime.display().to_string()
        ),
    );
    let mut main = String::from("use gdl_runtime::trace::{TraceOptions, write_trace};\n\n");
    let mut runs = String::new();
    let mut failures = Vec::new();
    let mut compiled = Vec::new();
    for &(set, game) in GAMES {
        let path = corpus.join("games").join(set).join(format!("{game}.kif"));
        let source =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let interpreted = interpreter_trace(&source);
        for (suffix, backend) in [
            ("", gdlc::codegen::Backend::Auto),
            ("_pn", gdlc::codegen::Backend::Propnet),
        ] {
            let module = format!("{}{suffix}", gdlc::pipeline::rust_module_name(game));
            let name = format!("{game}{suffix}");
            let mut options = gdlc::CompileOptions::for_game(game);
            options.codegen.backend = backend;
            match gdlc::compile(&source, &options) {
                Ok(c) => {
                    write_if_changed(&dir.join("src").join(format!("{module}.rs")), &c.rust);
                    let _ = writeln!(main, "mod {module};");
                    let _ = writeln!(runs, "    run(&out, {name:?}, &{module}::{});", c.type_name);
                    compiled.push((set, game, name, interpreted.clone()));
                }
                Err(e) => failures.push(format!("{name}: does not compile: {e:?}")),
            }
        }
    }
    let _ = write!(
        main,
        "\nfn run<G: gdl_runtime::Game>(out: &std::path::Path, name: &str, game: &G) {{\n    \
         let mut s = String::new();\n    \
         if let Err(e) = write_trace(game, &TraceOptions {{ seed: 1, max_steps: 100_000 }}, &mut s) {{\n        \
         s.push_str(&format!(\"error: {{e}}\\n\"));\n    }}\n    \
         std::fs::write(out.join(format!(\"{{name}}.txt\")), s).unwrap();\n}}\n\n\
         fn main() {{\n    let out = std::path::PathBuf::from(std::env::args().nth(1).unwrap());\n{runs}}}\n"
    );
    write_if_changed(&dir.join("src/main.rs"), &main);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(dir.join("target"))
        .status()
        .expect("run cargo");
    assert!(status.success(), "the generated crate does not build");
    let out = dir.join("traces");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let status = Command::new(dir.join("target/debug/compile-small"))
        .arg(&out)
        .status()
        .expect("run");
    assert!(status.success(), "the generated crate failed to run");
    for (set, game, name, interpreted) in compiled {
        let actual = std::fs::read_to_string(out.join(format!("{name}.txt"))).unwrap_or_default();
        let reference = corpus.join("traces").join(set).join(format!("{game}.txt"));
        let mut expected = vec![("interpreter", interpreted)];
        if !REFERENCE_DIFFERS.contains(&game)
            && let Ok(text) = std::fs::read_to_string(&reference)
        {
            expected.push(("reference", text));
        }
        for (what, text) in expected {
            if actual != text {
                let line = actual.lines().zip(text.lines()).position(|(a, b)| a != b);
                failures.push(format!(
                    "{name}: trace differs from the {what}'s (first at line {line:?})"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}
