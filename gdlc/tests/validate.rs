//! `gdlc validate` and `gdl_tools::validate`: small games broken in one way each (fixtures
//! in `tests/fixtures/validate/`, variations of `nim.kif`), each finding asserted with its
//! shortest path; tic-tac-toe solved exhaustively by both engines. Corpus games from
//! `$GDL_CORPUS` (skipped, with a line, when it is absent): ticTacToe well-formed, 5,478
//! states, a draw (interpreter, and compiled on two threads); connectFour sampled without
//! errors; chess's terminal states without goal values, the moves replayed to one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use gdl_runtime::{Declared, Game as _};
use gdl_tools::validate::{Finding, Kind, Mode, Report, Shown, ValidateOptions, validate};
use gdlc::interp::Interpreter;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/validate/{name}.kif"))
}

fn tic_tac_toe() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ticTacToe.kif")
}

/// The report of the interpreter on a description file.
fn report_of(path: &Path, options: &ValidateOptions) -> Report {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.display().to_string();
    let checked = gdlc::frontend::load(gdlc::Source::new(&name, &text), &Default::default())
        .unwrap_or_else(|e| panic!("{name} does not check: {e:?}"));
    let game = Interpreter::from_checked(&checked, Default::default()).expect("an interpreter");
    validate(&game, options, &mut |_| {})
}

fn validated(name: &str) -> Report {
    report_of(&fixture(name), &ValidateOptions::default())
}

fn joint(moves: &[&str]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

/// The one finding of a report, after checking there is only one kind of it.
fn only(report: &Report, kind: Kind) -> Vec<&Finding> {
    assert!(
        report.findings.iter().all(|f| f.kind == kind),
        "{:#?}",
        report.findings
    );
    report.findings.iter().collect()
}

#[test]
fn nim_is_well_formed_and_won_by_the_first_player() {
    let r = validated("nim");
    assert_eq!(r.mode, Mode::Exhaustive);
    assert_eq!((r.states, r.terminal_states, r.depth), (8, 2, 3));
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert_eq!(
        r.value,
        Some(vec![100, 0]),
        "taking 1 of 4 leaves 3, a loss"
    );
    let forced: Vec<_> = r.roles.iter().map(|r| r.strongly_winnable).collect();
    assert_eq!(forced, [Some(true), Some(false)]);
    assert!(r.roles.iter().all(|r| r.weakly_winnable == Some(true)));
    assert_eq!(r.exit_status(), 0);
}

#[test]
fn no_legal_move_after_one_move() {
    let r = validated("no_legal_move");
    let f = only(&r, Kind::NoLegalMove);
    assert_eq!((f.len(), f[0].role), (1, Some(0)));
    assert_eq!(f[0].path, [joint(&["(take 1)", "noop"])]);
    assert_eq!(r.exit_status(), 1);
}

#[test]
fn terminal_without_goal_on_the_shortest_game() {
    let r = validated("terminal_without_goal");
    let f = only(&r, Kind::TerminalWithoutGoal);
    // a loses fastest when both take 2; b loses in three moves at the earliest.
    assert_eq!((f[0].role, f[1].role), (Some(0), Some(1)));
    let take2 = [joint(&["(take 2)", "noop"]), joint(&["noop", "(take 2)"])];
    assert_eq!(f[0].path, take2);
    assert_eq!(f[1].path.len(), 3);
    assert_eq!(r.value, None);
    assert_eq!(r.exit_status(), 1);
}

#[test]
fn several_goal_values_in_a_non_terminal_state() {
    let r = validated("several_goals");
    let f = only(&r, Kind::SeveralGoals);
    assert_eq!((f.len(), f[0].role), (1, Some(0)));
    assert_eq!(f[0].path, [joint(&["(take 1)", "noop"])]);
    assert!(f[0].detail.contains("0, 50"), "{}", f[0].detail);
}

#[test]
fn several_goal_values_in_the_initial_state_are_shown_without_moves() {
    let r = validated("several_goals_initially");
    let f = only(&r, Kind::SeveralGoals);
    assert_eq!((f.len(), f[0].role), (1, Some(1)));
    assert!(f[0].path.is_empty());
    assert_eq!(f[0].shown(), Shown::InitialState);
    let text = gdl_tools::validate::text(&r, "g");
    let said = "error[several-goals]: role b: goal values 0, 50 in a non-terminal state\n  \
                in the initial state (no move leads to it)\n";
    assert!(text.contains(said), "{text}");
    let json = gdl_tools::validate::json(&r, "g");
    assert!(
        json.contains("\"shown\":\"initial-state\",\"path\":[]"),
        "{json}"
    );
    // Past the initial state it is shown by its moves.
    let r = validated("several_goals");
    assert_eq!(r.findings[0].shown(), Shown::State);
}

#[test]
fn goal_out_of_range() {
    let r = validated("goal_out_of_range");
    let f = only(&r, Kind::GoalOutOfRange);
    assert_eq!(f[0].role, Some(0));
    let take2 = [joint(&["(take 2)", "noop"]), joint(&["noop", "(take 2)"])];
    assert_eq!(f[0].path, take2);
    assert!(f[0].detail.contains("101"));
}

#[test]
fn a_cycle_through_the_initial_state() {
    let r = validated("cycle");
    let f = only(&r, Kind::Cycle);
    assert!(f[0].path.is_empty());
    assert_eq!(f[0].shown(), Shown::Cycle);
    let text = gdl_tools::validate::text(&r, "g");
    assert!(
        text.contains(
            "  the initial state lies on a cycle, back to it by:\n    \
             1. (does a pass) (does b noop)\n    2. (does a noop) (does b pass)\n"
        ),
        "{text}"
    );
    assert!(!text.contains("then back"), "{text}");
    let round = [joint(&["pass", "noop"]), joint(&["noop", "pass"])];
    assert_eq!(f[0].cycle, round);
    assert_eq!(r.value, None);
    assert_eq!(r.value_note, "the initial state can reach a cycle");
    // Passing for ever is no win: neither role can force one.
    assert!(r.roles.iter().all(|r| r.strongly_winnable == Some(false)));
    assert_eq!(r.exit_status(), 1);
}

#[test]
fn a_role_that_cannot_win() {
    let r = validated("not_weakly_winnable");
    let f = only(&r, Kind::NotWeaklyWinnable);
    assert_eq!((f.len(), f[0].role), (1, Some(1)));
    assert_eq!((f[0].path.len(), f[0].shown()), (0, Shown::WholeGraph));
    assert!(f[0].detail.contains("at best 50"), "{}", f[0].detail);
}

#[test]
fn base_and_input_that_declare_everything() {
    let r = validated("declared");
    assert_eq!((r.mode, r.states), (Mode::Exhaustive, 8));
    let checked = gdl_runtime::Declarations {
        base: Declared::Given,
        input: Declared::Given,
    };
    assert_eq!(r.declarations, checked);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert_eq!(r.exit_status(), 0);
    assert_eq!(validated("nim").declarations, Default::default());
}

#[test]
fn a_state_fact_that_base_leaves_out() {
    let r = validated("fact_not_in_base");
    let f = only(&r, Kind::UndeclaredFact);
    assert_eq!((f.len(), f[0].role), (1, None));
    assert_eq!(f[0].detail, "state fact (pile 2) is no base fact");
    assert_eq!(f[0].path, [joint(&["(take 2)", "noop"])]);
    // (pile 2) with a or b to move.
    assert_eq!(f[0].count, 2);
    assert_eq!(r.exit_status(), 1);
}

#[test]
fn a_legal_move_that_input_leaves_out() {
    let r = validated("move_not_in_input");
    let f = only(&r, Kind::UndeclaredMove);
    assert_eq!((f.len(), f[0].role), (1, Some(1)));
    assert_eq!(f[0].detail, "legal move (take 2) is no input of the role");
    // b may take 2 after either first move of a.
    assert_eq!(f[0].path.len(), 1);
    assert_eq!(f[0].path[0][1], "noop");
    assert_eq!(r.exit_status(), 1);
    // Sampling checks them as well, on the playout's moves.
    let sampled = ValidateOptions {
        max_states: 1,
        duration: Duration::from_millis(200),
        ..ValidateOptions::default()
    };
    let r = report_of(&fixture("move_not_in_input"), &sampled);
    assert_eq!(r.mode, Mode::Sampled);
    let f = only(&r, Kind::UndeclaredMove);
    assert_eq!((f[0].role, f[0].path.len()), (Some(1), 1));
}

#[test]
fn past_the_state_limit_playouts_find_the_long_ones() {
    let options = ValidateOptions {
        max_states: 2,
        duration: Duration::from_millis(300),
        max_playout_steps: 5,
        ..ValidateOptions::default()
    };
    let r = report_of(&fixture("cycle"), &options);
    assert_eq!(r.mode, Mode::Sampled);
    assert!(r.playouts > 0 && r.longest_playout == 5);
    let f = only(&r, Kind::LongPlayout);
    assert!(f[0].detail.contains("after 5 random steps"));
    assert_eq!(f[0].shown(), Shown::LongPlayout);
    assert_eq!(r.exit_status(), 2, "a warning, and undecided");
}

#[test]
fn tic_tac_toe_is_a_draw_of_5478_states() {
    let r = report_of(&tic_tac_toe(), &ValidateOptions::default());
    assert_eq!(r.mode, Mode::Exhaustive);
    // The 5,478 legal positions of tic-tac-toe (empty board included): the state is the board
    // and whose turn it is, and the turn follows from the board, so one state per position.
    assert_eq!(r.states, 5478);
    assert_eq!(r.terminal_states, 958);
    assert_eq!(r.depth, 9);
    assert_eq!(r.value, Some(vec![50, 50]));
    assert!(r.roles.iter().all(|r| r.strongly_winnable == Some(false)));
    // Goals are defined in every state (50 until a line), and a role's 50 drops to 0 when the
    // other completes a line: warnings only.
    assert!(
        r.findings.iter().all(|f| f.kind == Kind::GoalDecreases),
        "{:#?}",
        r.findings
    );
    assert_eq!(r.exit_status(), 0);
}

fn gdlc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gdlc"))
}

/// `gdlc validate --json` with `args`: the exit status and the report.
fn cli_json(args: &[&str], cache: &Path) -> (i32, serde_json::Value) {
    let out = gdlc()
        .arg("validate")
        .arg("--json")
        .args(args)
        .env("GDLC_CACHE", cache)
        .output()
        .expect("gdlc runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (out.status.code().unwrap_or(-1), report)
}

#[test]
fn both_engines_solve_tic_tac_toe_alike_and_exit_statuses() {
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validate-cache");
    let ttt = tic_tac_toe();
    let ttt = ttt.to_str().unwrap();
    let (code, interpreted) = cli_json(&[ttt, "--engine", "interpreted"], &cache);
    assert_eq!(code, 0);
    let (code, compiled) = cli_json(&[ttt, "--engine", "compiled"], &cache);
    assert_eq!(code, 0);
    for key in [
        "mode",
        "states",
        "terminal_states",
        "depth",
        "value",
        "roles",
    ] {
        assert_eq!(interpreted[key], compiled[key], "{key}");
    }
    assert_eq!(compiled["states"], 5478);
    assert_eq!(compiled["value"], serde_json::json!([50, 50]));
    let shape = |r: &serde_json::Value| -> Vec<(String, u64, usize)> {
        let findings = r["findings"].as_array().cloned().unwrap_or_default();
        findings
            .iter()
            .map(|f| {
                let path = f["path"].as_array().map_or(0, Vec::len);
                (
                    f["code"].to_string(),
                    f["count"].as_u64().unwrap_or(0),
                    path,
                )
            })
            .collect()
    };
    assert_eq!(shape(&interpreted), shape(&compiled));
    // Expanded on two threads: the same graph and the same findings, paths included.
    let (code, two) = cli_json(&[ttt, "--threads", "2"], &cache);
    assert_eq!(code, 0);
    for key in ["states", "terminal_states", "depth", "value", "findings"] {
        assert_eq!(two[key], compiled[key], "{key}");
    }
    let bad = fixture("no_legal_move");
    let (code, r) = cli_json(&[bad.to_str().unwrap(), "--engine", "interpreted"], &cache);
    assert_eq!((code, r["errors"].as_u64()), (1, Some(1)));
    // Both backends' goal values, several at once.
    let several = fixture("several_goals");
    for backend in ["propnet", "inline"] {
        let args = [several.to_str().unwrap(), "--backend", backend];
        let (code, r) = cli_json(&args, &cache);
        assert_eq!(code, 1, "{backend}");
        let first = &r["findings"][0];
        assert_eq!(first["code"], "several-goals", "{backend}");
        let detail = "goal values 0, 50 in a non-terminal state";
        assert_eq!(first["detail"], detail, "{backend}");
        let path = serde_json::json!([["(take 1)", "noop"]]);
        assert_eq!(first["path"], path, "{backend}");
    }
    // base and input: the same findings, paths and counts from both engines and backends.
    for name in ["fact_not_in_base", "move_not_in_input"] {
        let path = fixture(name);
        let path = path.to_str().unwrap();
        let (code, interpreted) = cli_json(&[path, "--engine", "interpreted"], &cache);
        assert_eq!(code, 1, "{name}");
        assert_eq!(interpreted["base"], "checked", "{name}");
        for backend in ["propnet", "inline"] {
            let (code, compiled) = cli_json(&[path, "--backend", backend], &cache);
            assert_eq!(code, 1, "{name} {backend}");
            // b may take 2 after either first move of a: two shortest paths, and which one
            // is found first depends on the engine's order of moves; only their length must
            // agree there.
            let tie = name == "move_not_in_input";
            assert_eq!(
                comparable(&compiled["findings"], tie),
                comparable(&interpreted["findings"], tie),
                "{name} {backend}"
            );
            assert_eq!(compiled["input"], "checked", "{name} {backend}");
        }
    }
    let cycle = fixture("cycle");
    let sampled = [cycle.to_str().unwrap(), "--engine", "interpreted"];
    let (code, r) = cli_json(
        &[&sampled[..], &["--max-states", "1", "--seconds", "0.2"]].concat(),
        &cache,
    );
    assert_eq!((code, r["mode"].as_str()), (2, Some("sampled")));
    // A description that does not compile: its diagnostics as JSON, exit status 1.
    let rejected = fixture("arity");
    for engine in ["interpreted", "compiled"] {
        let args = [rejected.to_str().unwrap(), "--engine", engine];
        let (code, r) = cli_json(&args, &cache);
        assert_eq!(
            (code, &r["exit_status"]),
            (1, &serde_json::json!(1)),
            "{engine}"
        );
        assert_eq!(r["rejected"][0]["code"], "function-arity", "{engine}");
        assert_eq!(r["rejected"][0]["severity"], "error", "{engine}");
    }
    let usage = gdlc()
        .args(["validate", "--seconds", "-1", ttt])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}

/// A game of the corpus (`$GDL_CORPUS/games/COLLECTION/NAME.kif`); `None`, after a line
/// saying so, when the corpus is absent.
fn corpus_game(collection: &str, name: &str) -> Option<PathBuf> {
    gdl_tests::corpus_path("validate", &format!("games/{collection}/{name}.kif"))
}

/// Plays `path` (joint moves as text) on `game` from the initial state: the state reached.
fn replay<G: gdl_runtime::Game>(game: &G, path: &[Vec<String>]) -> G::State {
    let mut state = game.initial_state();
    let mut next = state.clone();
    let mut legal = Vec::new();
    for (step, texts) in path.iter().enumerate() {
        assert!(!game.is_terminal(&state), "terminal before step {step}");
        let joint: Vec<G::Move> = (0..game.role_count())
            .map(|r| {
                game.legal_moves(&state, r, &mut legal);
                let text = &texts[r];
                let found = legal.iter().find(|&&m| game.move_text(r, m) == *text);
                *found.unwrap_or_else(|| panic!("step {step}: {text} is not legal for {r}"))
            })
            .collect();
        game.next_state(&state, &joint, &mut next);
        std::mem::swap(&mut state, &mut next);
    }
    state
}

fn interpreter_of(path: &Path) -> Interpreter {
    let text = gdl_tests::read_game(path);
    let name = path.display().to_string();
    let checked = gdlc::frontend::load(gdlc::Source::new(&name, &text), &Default::default())
        .unwrap_or_else(|e| panic!("{name} does not check: {e:?}"));
    Interpreter::from_checked(&checked, Default::default()).expect("an interpreter")
}

#[test]
fn corpus_tic_tac_toe_is_well_formed_a_draw_of_5478_states() {
    let mut games = Vec::new();
    for collection in ["ggp-repository", "ggp-base-tests"] {
        games.extend(corpus_game(collection, "ticTacToe"));
    }
    for path in &games {
        let r = report_of(path, &ValidateOptions::default());
        let name = path.display();
        assert_eq!(
            (r.mode, r.states, r.depth),
            (Mode::Exhaustive, 5478, 9),
            "{name}"
        );
        assert_eq!(r.value, Some(vec![50, 50]), "{name}");
        assert_eq!(
            (r.errors(), r.exit_status()),
            (0, 0),
            "{name}: {:#?}",
            r.findings
        );
    }
    // The compiled game (built through the cache), on two threads: the same verdict.
    let Some(path) = games.first() else { return };
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validate-cache");
    let (code, r) = cli_json(&[path.to_str().unwrap(), "--threads", "2"], &cache);
    assert_eq!(code, 0, "{r}");
    assert_eq!(
        (r["mode"].as_str(), r["states"].as_u64()),
        (Some("exhaustive"), Some(5478))
    );
    assert_eq!(r["value"], serde_json::json!([50, 50]));
    assert_eq!(r["well_formed"], true);
}

#[test]
fn corpus_connect_four_is_sampled_without_errors() {
    let Some(path) = corpus_game("ggp-repository", "connectFour") else {
        return;
    };
    // Eight columns of six: far too many positions; past a few thousand states, random
    // playouts, none longer than the 48 cells.
    let options = ValidateOptions {
        max_states: 5000,
        duration: Duration::from_secs(2),
        ..ValidateOptions::default()
    };
    let r = report_of(&path, &options);
    assert_eq!(r.mode, Mode::Sampled);
    assert!(r.exhaustive_stop.is_some() && r.states > 0);
    assert!(
        r.playouts > 0 && r.longest_playout <= 48,
        "{} playouts",
        r.playouts
    );
    assert_eq!(r.errors(), 0, "{:#?}", r.findings);
    assert_eq!(r.exit_status(), 2, "undecided");
}

#[test]
fn corpus_chess_reaches_terminal_states_without_goal_values() {
    let Some(path) = corpus_game("ggp-repository", "chess") else {
        return;
    };
    // After 200 moves chess ends (step 201) with goals only for mate or stalemate: a random
    // playout reaches such a state. One playout takes the interpreter about half a second.
    let game = interpreter_of(&path);
    let options = ValidateOptions {
        max_states: 1,
        duration: Duration::from_secs(1),
        ..ValidateOptions::default()
    };
    let r = validate(&game, &options, &mut |_| {});
    assert_eq!(r.mode, Mode::Sampled);
    let without: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| f.kind == Kind::TerminalWithoutGoal)
        .collect();
    assert_eq!(without.len(), 2, "{:#?}", r.findings);
    for f in without {
        assert_eq!(f.shown(), Shown::State);
        let end = replay(&game, &f.path);
        assert!(game.is_terminal(&end), "{} moves", f.path.len());
        let mut values = Vec::new();
        game.goal_values(&end, f.role.expect("a role"), &mut values);
        assert_eq!(values, [], "after {} moves", f.path.len());
    }
    assert_eq!(r.exit_status(), 1);
}

/// Findings as JSON to compare across engines; with `tie`, each path by its length only.
fn comparable(findings: &serde_json::Value, tie: bool) -> serde_json::Value {
    let mut f = findings.clone();
    if tie && let Some(list) = f.as_array_mut() {
        for finding in list {
            let len = finding["path"].as_array().map_or(0, Vec::len);
            finding["path"] = len.into();
        }
    }
    f
}
