//! Cargo crates around compiled games, as file contents (no I/O: the CLI and the test harnesses
//! write them).
//!
//! - [`single_game_crate`]: what `gdlc build` writes: `Cargo.toml`, `src/lib.rs` (the compiled
//!   module), `src/main.rs` (a binary whose command line is [`gdl_tools::cli`]: `trace`,
//!   `bench`, `traces`, `validate`; a player's binary also has `play` and `engine`, from
//!   `gdl-player`).
//! - [`multi_game_crate`]: several games in one crate, one module each, and one binary whose
//!   first argument names the game; the corpus command and the compiled-code tests use it to
//!   pay cargo's and the runtime's costs once for many games.
//! - [`cache_key`]: a stable hash (64-bit FNV-1a) that names a cached crate.
//!
//! Every crate has an empty `[workspace]` table, so that it builds wherever it is written (also
//! inside another workspace), and the same release profile ([`ReleaseProfile`]), so that
//! crates built into one shared target directory share one build of `gdl-runtime`.
//!
//! What a crate depends on follows from its modules ([`Needs`]): every crate on `gdl-runtime`
//! (the game) and `gdl-tools` (the binary's command line); a module of the propnet backend
//! also on `gdl-propnet`, one that embeds the interpreter on `gdl-interp`, a player's crate on
//! `gdl-player`.

use std::fmt::Write as _;
use std::hash::Hasher as _;

use crate::interp::embedded::embeds_interpreter;
use crate::pipeline::{Compiled, rust_module_name};

/// Where the generated crate finds `gdl-runtime` (and the crates of its workspace it also
/// needs, `gdl-tools`, `gdl-propnet`, `gdl-player` and `gdl-interp`: beside it, or the same
/// version).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuntimeDep {
    /// A local checkout: the directory of `gdl-runtime`'s `Cargo.toml`.
    Path(String),
    /// A version requirement on the registry.
    Version(String),
}

/// The `[profile.release]` of generated crates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseProfile {
    /// `opt-level` (0-3).
    pub opt_level: u8,
    /// `codegen-units` of every crate of the build: more compile faster (in parallel).
    pub codegen_units: u32,
    /// `codegen-units` of the game's crate, `gdl-runtime`, `gdl-propnet` (a propnet module's)
    /// and `gdl-player` (a player's), when
    /// set (default 1). Where a function falls among several units depends on symbol hashes,
    /// which depend on the crate's path, and calls across units are not inlined: with 16 the
    /// same englishDraughts
    /// module ran 12.7k or 19.6k playouts per CPU s depending on the path of `gdl-runtime`.
    /// One unit is the same code everywhere and took no longer to build for the games
    /// measured (checkers 11.8 s vs 12.5 s on 2 cores); the other crates (the interpreter an
    /// interpreter-embedding game depends on: 20 s more with one unit) keep
    /// [`ReleaseProfile::codegen_units`].
    pub hot_codegen_units: Option<u32>,
    /// `panic = "abort"`: no unwinding tables.
    pub panic_abort: bool,
}

impl Default for ReleaseProfile {
    fn default() -> Self {
        ReleaseProfile {
            opt_level: 3,
            codegen_units: 16,
            hot_codegen_units: Some(1),
            panic_abort: true,
        }
    }
}

/// How a generated crate stands: alone, or as a member of a generated workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Its own workspace (an empty `[workspace]` table) with this release profile.
    Standalone(ReleaseProfile),
    /// A member of a workspace written by [`workspace_toml`], which holds the profile.
    Member,
}

/// Options of a generated crate.
#[derive(Clone, Debug)]
pub struct CrateOptions {
    /// The package name (also the binary's name).
    pub package: String,
    pub runtime: RuntimeDep,
    pub layout: Layout,
    /// The description the game is compiled from: when given, the binary also has the `play`
    /// and `engine` sub-commands (the game served over HTTP with MCTS, for these rules only),
    /// and the crate depends on `gdl-player` with its `http` feature ([`player_dep`]).
    pub player_rules: Option<String>,
}

/// One file of a generated crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrateFile {
    /// The path relative to the crate root, with `/` separators (`src/main.rs`).
    pub path: String,
    pub contents: String,
}

/// The files of a generated crate, and the name of its binary.
#[derive(Clone, Debug)]
pub struct CrateFiles {
    pub files: Vec<CrateFile>,
    /// The binary's name: `target/release/<bin>` once built.
    pub bin: String,
}

/// A game of a [`multi_game_crate`].
#[derive(Clone, Debug)]
pub struct GameModule<'a> {
    /// The game's name as the binary's command line takes it (the file stem, `ticTacToe`).
    pub name: String,
    /// The Rust module name ([`rust_module_name`] of the name, unless two collide).
    pub module: String,
    /// The name of the game struct in `rust`.
    pub type_name: String,
    /// The compiled module.
    pub rust: &'a str,
}

/// The package name of a game's crate: `gdl-` and the game's module name, `_` as `-`
/// (`ticTacToe` gives `gdl-tictactoe`, `3pConnectFour` `gdl-g-3pconnectfour`).
pub fn package_name(stem: &str) -> String {
    format!("gdl-{}", rust_module_name(stem).replace('_', "-"))
}

/// What the modules of a crate need beyond `gdl-runtime`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// A module runs on the propositional network engine (`gdl-propnet`).
    pub propnet: bool,
    /// A module embeds the interpreter (a description too large to ground, see
    /// [`crate::interp::embedded`]), and so needs `gdl-interp`.
    pub interpreter: bool,
}

impl Needs {
    /// What the generated modules `rust` need.
    pub fn of<'a>(rust: impl IntoIterator<Item = &'a str>) -> Needs {
        rust.into_iter().fold(Needs::default(), |n, r| Needs {
            propnet: n.propnet || uses_propnet(r),
            interpreter: n.interpreter || embeds_interpreter(r),
        })
    }
}

/// Whether the generated module `rust` runs on the propositional network engine (and so
/// needs `gdl-propnet`): its code names the crate.
pub fn uses_propnet(rust: &str) -> bool {
    rust.contains("gdl_propnet::")
}

/// `Cargo.toml` of a generated crate: it depends on `gdl-runtime` and `gdl-tools` (the
/// binary's command line, [`tools_dep`]); a player's ([`CrateOptions::player_rules`]) also on
/// `gdl-player` ([`player_dep`]); with [`Needs::propnet`] on `gdl-propnet` ([`propnet_dep`]),
/// with [`Needs::interpreter`] on `gdl-interp` ([`interp_dep`]).
pub fn cargo_toml(options: &CrateOptions, description: &str, needs: Needs) -> String {
    let runtime = match &options.runtime {
        RuntimeDep::Path(p) => format!("{{ path = {} }}", toml_string(p)),
        RuntimeDep::Version(v) => toml_string(v),
    };
    let mut s = format!(
        "# @generated by gdlc {version}. Do not edit.\n\
         [package]\n\
         name = {name}\n\
         version = \"0.1.0\"\n\
         edition = \"2024\"\n\
         description = {description}\n\
         publish = false\n\
         \n\
         [[bin]]\n\
         name = {name}\n\
         path = \"src/main.rs\"\n\
         \n\
         [dependencies]\n\
         gdl-runtime = {runtime}\n",
        version = env!("CARGO_PKG_VERSION"),
        name = toml_string(&options.package),
        description = toml_string(description),
    );
    let _ = writeln!(s, "gdl-tools = {}", tools_dep(&options.runtime));
    if needs.propnet {
        let _ = writeln!(s, "gdl-propnet = {}", propnet_dep(&options.runtime));
    }
    let player = options.player_rules.is_some();
    if player {
        let _ = writeln!(s, "gdl-player = {}", player_dep(&options.runtime));
    }
    if needs.interpreter {
        let _ = writeln!(s, "gdl-interp = {}", interp_dep(&options.runtime));
    }
    if let Layout::Standalone(profile) = &options.layout {
        s.push_str("\n# Not part of any enclosing workspace.\n[workspace]\n\n");
        let mut hot: Vec<&str> = Vec::new();
        if needs.propnet {
            hot.push("gdl-propnet");
        }
        if player {
            hot.push("gdl-player");
        }
        hot.push(&options.package);
        s.push_str(&profile_toml(profile, &hot));
    }
    s
}

/// The `gdl-interp` dependency of a crate that embeds the interpreter (`sibling_dep`).
pub fn interp_dep(runtime: &RuntimeDep) -> String {
    sibling_dep(runtime, "gdl-interp", "")
}

/// The `gdl-tools` dependency of every generated crate (`sibling_dep`).
pub fn tools_dep(runtime: &RuntimeDep) -> String {
    sibling_dep(runtime, "gdl-tools", "")
}

/// The `gdl-propnet` dependency of a crate with a propnet module (`sibling_dep`).
pub fn propnet_dep(runtime: &RuntimeDep) -> String {
    sibling_dep(runtime, "gdl-propnet", "")
}

/// The `gdl-player` dependency of a player's crate, with the HTTP player (`sibling_dep`).
pub fn player_dep(runtime: &RuntimeDep) -> String {
    sibling_dep(runtime, "gdl-player", "features = [\"http\"]")
}

/// The directory of the crate `name` of `gdl-runtime`'s workspace when the runtime is a local
/// checkout: `name` next to it (as in this workspace).
pub fn sibling_dir(runtime: &RuntimeDep, name: &str) -> Option<std::path::PathBuf> {
    match runtime {
        RuntimeDep::Path(p) => Some(beside(p, name)),
        RuntimeDep::Version(_) => None,
    }
}

fn beside(runtime_dir: &str, name: &str) -> std::path::PathBuf {
    std::path::Path::new(runtime_dir)
        .parent()
        .map_or_else(|| name.into(), |d| d.join(name))
}

/// The dependency on the crate `name` of `gdl-runtime`'s workspace, with `keys` (`key = value`
/// TOML, or nothing) added: beside a local `gdl-runtime` ([`sibling_dir`]), else the same
/// version.
fn sibling_dep(runtime: &RuntimeDep, name: &str, keys: &str) -> String {
    let at = match runtime {
        RuntimeDep::Path(p) => format!(
            "path = {}",
            toml_string(&beside(p, name).display().to_string())
        ),
        RuntimeDep::Version(v) => format!("version = {}", toml_string(v)),
    };
    if keys.is_empty() {
        format!("{{ {at} }}")
    } else {
        format!("{{ {at}, {keys} }}")
    }
}

/// The `[profile.release]` table, and the units of `gdl-runtime` and of the packages `hot` (the
/// game's crate, and `gdl-propnet` and `gdl-player` when it depends on them).
fn profile_toml(p: &ReleaseProfile, hot: &[&str]) -> String {
    let mut s = format!(
        "[profile.release]\n\
         opt-level = {opt}\n\
         codegen-units = {cgu}\n\
         debug = false\n\
         incremental = false\n",
        opt = p.opt_level.min(3),
        cgu = p.codegen_units.max(1),
    );
    if p.panic_abort {
        s.push_str("panic = \"abort\"\n");
    }
    if let Some(units) = p.hot_codegen_units {
        for name in std::iter::once(&"gdl-runtime").chain(hot) {
            let _ = write!(
                s,
                "\n[profile.release.package.{}]\ncodegen-units = {}\n",
                toml_string(name),
                units.max(1)
            );
        }
    }
    s
}

/// The root `Cargo.toml` of a generated workspace whose members are the directories
/// `members` (crates written with [`Layout::Member`]).
pub fn workspace_toml(members: &[String], profile: &ReleaseProfile) -> String {
    let mut s = format!(
        "# @generated by gdlc {}. Do not edit.\n[workspace]\nresolver = \"3\"\nmembers = [\n",
        env!("CARGO_PKG_VERSION")
    );
    for m in members {
        let _ = writeln!(s, "    {},", toml_string(m));
    }
    s.push_str("]\n\n");
    s.push_str(&profile_toml(profile, &[]));
    s
}

/// The crate of one compiled game: `src/lib.rs` is the compiled module, `src/main.rs` calls
/// [`gdl_tools::cli::main_for`] on it (a player's, `gdl_player::http::main_with_player`).
pub fn single_game_crate(stem: &str, compiled: &Compiled, options: &CrateOptions) -> CrateFiles {
    let lib_crate = options.package.replace('-', "_");
    let call = match options.player_rules {
        Some(_) => format!(
            "gdl_player::http::main_with_player(&{lib_crate}::{ty}, {stem:?}, include_str!(\"rules.kif\"))",
            ty = compiled.type_name
        ),
        None => format!(
            "gdl_tools::cli::main_for(&{lib_crate}::{ty}, {stem:?})",
            ty = compiled.type_name
        ),
    };
    let main = format!(
        "// @generated by gdlc {version}. Do not edit.\n\
         fn main() -> std::process::ExitCode {{\n    {call}\n}}\n",
        version = env!("CARGO_PKG_VERSION"),
    );
    let description = format!("The game {stem}, compiled from GDL by gdlc");
    let mut files = vec![
        file(
            "Cargo.toml",
            cargo_toml(options, &description, Needs::of([compiled.rust.as_str()])),
        ),
        file("src/lib.rs", compiled.rust.clone()),
        file("src/main.rs", main),
        file(".gitignore", "/target\n".to_string()),
    ];
    if let Some(rules) = &options.player_rules {
        files.push(file("src/rules.kif", rules.clone()));
    }
    CrateFiles {
        files,
        bin: options.package.clone(),
    }
}

/// A crate holding several compiled games, one module each (`src/<module>.rs`), and one
/// binary: `BIN GAME COMMAND ...` runs [`gdl_tools::cli::run_game`] on the named game,
/// `BIN list` lists them.
pub fn multi_game_crate(games: &[GameModule<'_>], options: &CrateOptions) -> CrateFiles {
    let mut main = format!(
        "// @generated by gdlc {}. Do not edit.\n\n",
        env!("CARGO_PKG_VERSION")
    );
    for g in games {
        let _ = writeln!(main, "mod {};", g.module);
    }
    main.push_str("\nconst GAMES: &[&str] = &[\n");
    for g in games {
        let _ = writeln!(main, "    {:?},", g.name);
    }
    main.push_str(
        "];\n\nfn main() -> std::process::ExitCode {\n    \
         gdl_tools::cli::main_multi(GAMES, |name, args| {\n        \
         Some(match name {\n",
    );
    for g in games {
        let _ = writeln!(
            main,
            "            {name:?} => gdl_tools::cli::run_game(&{m}::{ty}, {name:?}, args),",
            name = g.name,
            m = g.module,
            ty = g.type_name
        );
    }
    main.push_str("            _ => return None,\n        })\n    })\n}\n");
    let description = format!("{} games compiled from GDL by gdlc", games.len());
    let needs = Needs::of(games.iter().map(|g| g.rust));
    let mut files = vec![
        file("Cargo.toml", cargo_toml(options, &description, needs)),
        file("src/main.rs", main),
    ];
    for g in games {
        files.push(file(&format!("src/{}.rs", g.module), g.rust.to_string()));
    }
    CrateFiles {
        files,
        bin: options.package.clone(),
    }
}

/// Module names for game names, [`rust_module_name`] made unique (`_2`, `_3`... on a clash).
pub fn unique_module_names(names: &[&str]) -> Vec<String> {
    let mut taken: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        let base = rust_module_name(n);
        let mut candidate = base.clone();
        let mut k = 2;
        while taken.contains(&candidate) {
            candidate = format!("{base}_{k}");
            k += 1;
        }
        taken.push(candidate);
    }
    taken
}

/// A stable 64-bit FNV-1a hash of `parts` (each length-prefixed, so that the split between
/// parts matters), as 16 hexadecimal digits. The same on every platform and every run.
pub fn cache_key(parts: &[&[u8]]) -> String {
    let mut h = fnv::FnvHasher::default();
    for p in parts {
        h.write(&(p.len() as u64).to_le_bytes());
        h.write(p);
    }
    format!("{:016x}", h.finish())
}

fn file(path: &str, contents: String) -> CrateFile {
    CrateFile {
        path: path.to_string(),
        contents,
    }
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> CrateOptions {
        CrateOptions {
            package: package_name("ticTacToe"),
            runtime: RuntimeDep::Path("/x/gdl \"runtime\"\\".into()),
            layout: Layout::Standalone(ReleaseProfile::default()),
            player_rules: None,
        }
    }

    #[test]
    fn a_player_crate_depends_on_the_http_player_beside_the_runtime() {
        let with = CrateOptions {
            player_rules: Some("(role x)".into()),
            runtime: RuntimeDep::Version("0.1.0".into()),
            ..options()
        };
        let t = cargo_toml(&with, "d", Needs::default());
        assert!(t.contains("gdl-runtime = \"0.1.0\"\n"), "{t}");
        assert!(
            t.contains("gdl-player = { version = \"0.1.0\", features = [\"http\"] }\n"),
            "{t}"
        );
        assert!(
            t.contains("[profile.release.package.\"gdl-player\"]\ncodegen-units = 1\n"),
            "{t}"
        );
        let local = CrateOptions {
            runtime: RuntimeDep::Path("/w/gdl-runtime".into()),
            ..with.clone()
        };
        let t = cargo_toml(&local, "d", Needs::default());
        assert!(
            t.contains("gdl-runtime = { path = \"/w/gdl-runtime\" }\n"),
            "{t}"
        );
        assert!(
            t.contains("gdl-player = { path = \"/w/gdl-player\", features = [\"http\"] }\n"),
            "{t}"
        );
        assert_eq!(
            sibling_dir(&local.runtime, "gdl-player"),
            Some(std::path::PathBuf::from("/w/gdl-player"))
        );
        let c = crate::compile("(role r) (init (p)) (<= (legal r a) (true (p))) (<= (next (p)) (does r a)) (<= terminal (not (true (p)))) (goal r 100)", &crate::CompileOptions::for_game("tiny")).unwrap();
        let one = single_game_crate("tiny", &c, &local);
        assert!(one.files[2].contents.contains(
            "gdl_player::http::main_with_player(&gdl_tictactoe::Tiny, \"tiny\", include_str!(\"rules.kif\"))"
        ), "{}", one.files[2].contents);
        assert!(
            one.files
                .iter()
                .any(|f| f.path == "src/rules.kif" && f.contents == "(role x)")
        );
    }

    #[test]
    fn names_and_keys_are_stable() {
        assert_eq!(package_name("ticTacToe"), "gdl-tictactoe");
        assert_eq!(package_name("3pConnectFour"), "gdl-g-3pconnectfour");
        assert_eq!(cache_key(&[b"a", b"bc"]), cache_key(&[b"a", b"bc"]));
        assert_ne!(cache_key(&[b"a", b"bc"]), cache_key(&[b"ab", b"c"]));
        assert_eq!(cache_key(&[]), "cbf29ce484222325");
        assert_eq!(
            unique_module_names(&["a-b", "a_b", "A_b"]),
            ["a_b", "a_b_2", "a_b_3"]
        );
    }

    #[test]
    fn cargo_toml_escapes_and_sets_the_profile() {
        let t = cargo_toml(&options(), "d", Needs::default());
        assert!(t.contains("gdl-runtime = { path = \"/x/gdl \\\"runtime\\\"\\\\\" }"));
        assert!(t.contains("name = \"gdl-tictactoe\""));
        assert!(t.contains("[workspace]\n"));
        assert!(t.contains("codegen-units = 16\n"));
        assert!(t.contains(
            "[profile.release.package.\"gdl-runtime\"]\ncodegen-units = 1\n\n\
             [profile.release.package.\"gdl-tictactoe\"]\ncodegen-units = 1\n"
        ));
        assert!(t.contains("panic = \"abort\"\n"));
        let member = CrateOptions {
            layout: Layout::Member,
            ..options()
        };
        assert!(!cargo_toml(&member, "d", Needs::default()).contains("[workspace]"));
        // Without a local checkout, the runtime comes from the registry by version.
        let registry = CrateOptions {
            runtime: RuntimeDep::Version("0.1.0".into()),
            ..options()
        };
        assert!(cargo_toml(&registry, "d", Needs::default()).contains("gdl-runtime = \"0.1.0\"\n"));
        // A plain game crate needs no player.
        assert!(!t.contains("gdl-player"), "{t}");
        // A crate that embeds the interpreter depends on gdl-interp too (not on the compiler),
        // found beside the runtime.
        assert!(!t.contains("gdl-interp ="));
        let interp = Needs {
            interpreter: true,
            ..Needs::default()
        };
        let embedding = CrateOptions {
            runtime: RuntimeDep::Path("/w/gdl-runtime".into()),
            ..options()
        };
        assert!(
            cargo_toml(&embedding, "d", interp)
                .contains("gdl-interp = { path = \"/w/gdl-interp\" }\n")
        );
        assert!(
            cargo_toml(&registry, "d", interp).contains("gdl-interp = { version = \"0.1.0\" }\n")
        );
        let w = workspace_toml(&["batch-0".into()], &ReleaseProfile::default());
        assert!(w.contains("members = [\n    \"batch-0\",\n]\n"));
        assert!(w.contains("opt-level = 3\n"));
    }

    #[test]
    fn every_crate_depends_on_the_tools_and_a_propnet_module_on_the_engine() {
        let local = CrateOptions {
            runtime: RuntimeDep::Path("/w/gdl-runtime".into()),
            ..options()
        };
        let plain = cargo_toml(&local, "d", Needs::default());
        assert!(
            plain.contains("gdl-tools = { path = \"/w/gdl-tools\" }\n"),
            "{plain}"
        );
        assert!(!plain.contains("gdl-propnet"), "{plain}");
        let registry = CrateOptions {
            runtime: RuntimeDep::Version("0.1.0".into()),
            ..options()
        };
        let propnet = Needs {
            propnet: true,
            ..Needs::default()
        };
        let t = cargo_toml(&registry, "d", propnet);
        assert!(t.contains("gdl-tools = { version = \"0.1.0\" }\n"), "{t}");
        assert!(t.contains("gdl-propnet = { version = \"0.1.0\" }\n"), "{t}");
        assert!(
            t.contains("[profile.release.package.\"gdl-propnet\"]\ncodegen-units = 1\n"),
            "{t}"
        );
        assert_eq!(
            Needs::of(["use gdl_propnet::{Engine, Net};", "fn f() {}"]),
            propnet
        );
        assert_eq!(Needs::of(["fn f() {}"]), Needs::default());
    }

    #[test]
    fn crates_have_their_files() {
        let src = "(role r) (init (p)) (<= (legal r a) (true (p))) (<= (next (p)) (does r a)) \
                   (<= terminal (not (true (p)))) (goal r 100)";
        let c = crate::compile(src, &crate::CompileOptions::for_game("tiny")).unwrap();
        let one = single_game_crate("tiny", &c, &options());
        let paths: Vec<&str> = one.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            ["Cargo.toml", "src/lib.rs", "src/main.rs", ".gitignore"]
        );
        assert!(
            one.files[2]
                .contents
                .contains("main_for(&gdl_tictactoe::Tiny, \"tiny\")")
        );
        let games = [GameModule {
            name: "tiny".into(),
            module: "tiny".into(),
            type_name: c.type_name.clone(),
            rust: &c.rust,
        }];
        let many = multi_game_crate(&games, &options());
        assert_eq!(many.files[2].path, "src/tiny.rs");
        assert!(
            many.files[1]
                .contents
                .contains("\"tiny\" => gdl_tools::cli::run_game(&tiny::Tiny, \"tiny\", args),")
        );
    }
}
