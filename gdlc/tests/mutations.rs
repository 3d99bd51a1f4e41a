//! A property test over mutated descriptions: whatever the front end accepts, the interpreter
//! plays and the compiler compiles (to Rust that parses, with shallow expressions) without a
//! panic, an abort or a hang; what it rejects, it rejects with located errors. The mutants are
//! seeded token edits of the shipped games and of small corpus games (when the corpus is
//! present), the kind of input that once broke gdlc (`../shared/regressions/`).
//!
//! `GDLC_MUTANTS=N` sets the mutants per game (default 20), `GDLC_MUTANT_STRIDE=K` mutates
//! every K-th small corpus game (default 12; 1 for all of them).

use std::path::{Path, PathBuf};
use std::time::Duration;

use gdl_runtime::SplitMix64;
use gdl_tools::compare::{compare_records, playout_record};
use gdl_tools::trace::{TraceError, TraceOptions, write_trace};
use gdlc::check::CheckOptions;
use gdlc::codegen::propnet::OwnedNetGame;
use gdlc::ground::GroundOptions;
use gdlc::interp::{Interpreter, Limits};
use gdlc::pipeline::{Pass, run};
use gdlc::{CompileOptions, Source, frontend};

/// Splits KIF text into tokens: `(`, `)` and the words between.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut comment = false;
    for c in text.chars() {
        if comment {
            comment = c != '\n';
            continue;
        }
        if c == ';' || c == '(' || c == ')' || c.is_whitespace() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            match c {
                ';' => comment = true,
                '(' | ')' => out.push(c.to_string()),
                _ => {}
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The index just past the form that starts at `i` (a word, or a parenthesised list).
fn form_end(t: &[String], i: usize) -> usize {
    if t[i] != "(" {
        return i + 1;
    }
    let mut depth = 0usize;
    for (j, tok) in t.iter().enumerate().skip(i) {
        match tok.as_str() {
            "(" => depth += 1,
            ")" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    t.len()
}

/// One seeded edit of the tokens.
fn mutate(t: &mut Vec<String>, rng: &mut SplitMix64) {
    if t.is_empty() {
        t.push("(".into());
        return;
    }
    let i = rng.below(t.len());
    let words: Vec<usize> = (0..t.len())
        .filter(|&k| t[k] != "(" && t[k] != ")")
        .collect();
    match rng.below(11) {
        // Delete a token (unbalances, or changes arity).
        0 => {
            t.remove(i);
        }
        // Delete a whole form (a body literal, a rule, an argument).
        9 | 10 => {
            let end = form_end(t, i);
            t.drain(i..end);
        }
        // Duplicate a token.
        1 => {
            let tok = t[i].clone();
            t.insert(i, tok);
        }
        // Swap two tokens.
        2 => {
            let j = rng.below(t.len());
            t.swap(i, j);
        }
        // A word replaced by another word of the file (a relation by a constant, ...).
        3 if !words.is_empty() => {
            let (a, b) = (words[rng.below(words.len())], words[rng.below(words.len())]);
            t[a] = t[b].clone();
        }
        // A form repeated many times (a rule written 50 times, a wide body).
        4 => {
            let end = form_end(t, i);
            let form: Vec<String> = t[i..end].to_vec();
            for _ in 0..50 {
                t.splice(end..end, form.iter().cloned());
            }
        }
        // A word wrapped in parentheses: a constant becomes a 0-ary function, and so on.
        5 if !words.is_empty() => {
            let a = words[rng.below(words.len())];
            t.insert(a + 1, ")".into());
            t.insert(a, "(".into());
        }
        // A variable where a constant was, or the reverse.
        6 if !words.is_empty() => {
            let a = words[rng.below(words.len())];
            t[a] = match t[a].strip_prefix('?') {
                Some(v) => v.to_string(),
                None => format!("?{}", t[a]),
            };
        }
        // A term nested in itself: `(f x)` -> `(f (f x))`, growing terms.
        7 if !words.is_empty() => {
            let a = words[rng.below(words.len())];
            let w = t[a].clone();
            t.splice(a..=a, ["(".into(), "s".into(), w, ")".into()]);
        }
        // Truncated.
        _ => t.truncate(i),
    }
}

/// The limits mutants run within: small, so that a mutant that explodes says so at once.
fn limits() -> Limits {
    Limits {
        max_query_steps: 5_000_000,
        max_terms: 500_000,
        max_relation_cells: 2_000_000,
    }
}

fn ground_options() -> GroundOptions {
    GroundOptions {
        max_atoms: 100_000,
        max_matches: 10_000_000,
        time_limit: Some(Duration::from_secs(10)),
        ..GroundOptions::default()
    }
}

/// What became of one mutant.
#[derive(Default, Debug)]
struct Outcome {
    rejected: bool,
    played: bool,
    compiled: bool,
    /// Its network was played against the interpreter (and agreed).
    compared: bool,
}

/// The property, for one description.
fn check(name: &str, text: &str) -> Outcome {
    let mut outcome = Outcome::default();
    let source = Source::new(name, text);
    let checked = match frontend::load(source, &CheckOptions::default()) {
        Ok(c) => c,
        Err(errors) => {
            assert!(!errors.is_empty(), "{name}: rejected without an error");
            assert!(
                errors.iter().any(|d| d.is_error()),
                "{name}: rejected with warnings only: {errors:?}"
            );
            outcome.rejected = true;
            return outcome;
        }
    };
    let interpreter = Interpreter::from_checked(&checked, limits()).ok();
    if let Some(game) = &interpreter {
        let mut out = String::new();
        let r = write_trace(
            game,
            &TraceOptions {
                seed: 7,
                max_steps: 200,
            },
            &mut out,
        );
        if let Err(TraceError::Fault { reason, .. }) = &r {
            assert!(
                game.fault_diagnostic().is_some(),
                "{name}: fault without a diagnostic: {reason}"
            );
        }
        outcome.played = r.is_ok();
    }
    let mut options = CompileOptions::for_game("mutant");
    options.ground = ground_options();
    // A hybrid network is kept, not raced against the interpreter: the race is timed, so on
    // a loaded machine it could embed the interpreter and leave nothing to compare.
    options.race.enabled = false;
    if let Ok(a) = run(source, &options, Pass::Generate) {
        let rust = a.rust.unwrap_or_default();
        let parsed = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                syn::parse_file(&rust)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
            .expect("thread")
            .join()
            .expect("syn does not panic");
        assert!(
            parsed.is_ok(),
            "{name}: generated code does not parse: {parsed:?}"
        );
        outcome.compiled = true;
        // What was compiled plays as the interpreter does: the network the module would run,
        // played in this process (whichever backend the module has; the inline code itself
        // is checked by the corpus tests, which build it).
        if let (Some(ir), Some(game), false) = (&a.ir, &interpreter, a.embedded_interpreter) {
            outcome.compared = network_agrees(name, ir, game);
        }
    }
    outcome
}

/// Whether the network of `ir` and the interpreter `game` agree on three seeded playouts
/// (panics with the first difference); `false` when the interpreter stopped at its budget,
/// so that there is nothing to compare.
fn network_agrees(name: &str, ir: &gdlc::ir::Ir, game: &Interpreter) -> bool {
    let net = gdlc::codegen::propnet::module_net(ir);
    let network = OwnedNetGame::on(ir.clone(), net);
    for seed in 1..=3 {
        let expected = playout_record(game, seed, 200);
        if game.fault().is_some() {
            return false;
        }
        let got = playout_record(&network, seed, 200);
        if let Err(m) = compare_records(seed, &expected, &got, ["interpreter", "network"]) {
            panic!("{name}: the compiled network plays another game: {m}");
        }
    }
    true
}

/// What a mutant that broke the property did, with the mutant written where it can be run
/// again (`target/mutants/NAME`, e.g. with `gdlc check`/`gdlc emit`).
fn kept(name: &str, mutant: &str, panic: &(dyn std::any::Any + Send)) -> String {
    let why = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mutants");
    let path = dir.join(name);
    match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, mutant)) {
        Ok(()) => format!("{name} (kept in {}): {why}", path.display()),
        Err(e) => format!("{name} (not kept: {e}): {why}"),
    }
}

/// The games mutated: the shipped ones, and every `GDLC_MUTANT_STRIDE`-th small corpus game.
fn games() -> Vec<PathBuf> {
    let stride: usize = std::env::var("GDLC_MUTANT_STRIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12)
        .max(1);
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut games: Vec<PathBuf> = ["ticTacToe.kif", "connectFour.kif", "montyHall.kif"]
        .iter()
        .map(|g| examples.join(g))
        .collect();
    if gdl_tests::corpus_path("mutations", "games").is_some() {
        let small: Vec<PathBuf> = gdl_tests::corpus_games()
            .into_iter()
            .map(|g| g.kif)
            .filter(|k| std::fs::metadata(k).is_ok_and(|m| m.len() < 12_000))
            .collect();
        games.extend(small.into_iter().step_by(stride));
    }
    games
}

#[test]
fn mutated_descriptions_end_in_an_answer_or_an_error() {
    let per_game: u64 = std::env::var("GDLC_MUTANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let games = games();
    let results = gdl_tests::run_parallel(
        &games,
        |g| format!("mutants of {}", g.display()),
        Duration::from_secs(300),
        |kif| {
            let text = gdl_tests::read_game(kif);
            let original = tokens(&text);
            let stem = kif.file_stem().unwrap_or_default().to_string_lossy();
            let mut outcomes = Vec::new();
            for m in 0..per_game {
                let mut rng = SplitMix64::new(m * 7919 + original.len() as u64);
                let mut t = original.clone();
                for _ in 0..=rng.below(2) {
                    mutate(&mut t, &mut rng);
                }
                let mutant = t.join(" ");
                let name = format!("{stem}~{m}.kif");
                match std::panic::catch_unwind(|| check(&name, &mutant)) {
                    Ok(outcome) => outcomes.push(outcome),
                    Err(e) => panic!("{}", kept(&name, &mutant, e.as_ref())),
                }
            }
            outcomes
        },
    );
    let all: Vec<&Outcome> = results.iter().flat_map(|(o, _)| o).collect();
    let count = |f: fn(&Outcome) -> bool| all.iter().filter(|o| f(o)).count();
    eprintln!(
        "{} mutants of {} games: {} rejected, {} played to the end, {} compiled, {} networks \
         agreed with the interpreter",
        all.len(),
        games.len(),
        count(|o| o.rejected),
        count(|o| o.played),
        count(|o| o.compiled),
        count(|o| o.compared)
    );
    // The mutants exercise both sides of the front end.
    assert!(count(|o| o.rejected) > 0 && count(|o| !o.rejected) > 0);
    assert!(
        count(|o| o.compared) > 0,
        "no mutant's network was compared"
    );
}

/// Mutants the property once failed on, made again from their corpus game by the same edit
/// (the corpus is not copied into the repository), each with what it must do now.
#[test]
fn mutants_that_once_broke_gdlc() {
    if gdl_tests::corpus_path("mutations", "games").is_none() {
        return;
    }
    let games = gdl_tests::corpus_games();
    let game = |name: &str| {
        let g = games.iter().find(|g| g.name == name).expect("corpus game");
        gdl_tests::read_game(&g.kif)
    };
    // ad_game_2x2 without `(number 17)`: hybrid grounding (under the mutants' limits) left
    // the recursive `bestscoreaccumulator` rule to be joined at run time; lowering noticed, but
    // went on making props and indexed by the join's missing atom (a panic). Now the error,
    // at the rule.
    let text = game("ad_game_2x2").replacen("(number 17)", "(17)", 1);
    assert!(!text.contains("(number 17)"), "the edit applies");
    let mut options = CompileOptions::for_game("mutant");
    options.ground = ground_options();
    let errors = run(
        Source::new("ad_game_2x2~16.kif", &text),
        &options,
        Pass::Optimise,
    )
    .expect_err("a recursive rule too large to ground is an error");
    let e = &errors[0];
    assert_eq!(e.code, "grounding-too-large", "{errors:?}");
    let at = &text[e.span.start as usize..e.span.end as usize];
    assert!(
        at.starts_with("(<= (bestscoreaccumulator"),
        "the error is at the rule: {at}"
    );
    // The whole property, on the mutant as the campaign made it.
    check("ad_game_2x2~16.kif", &text);

    // four_way_battle without `(coordinate 3)`: hybrid grounding joins the `legal move` rule
    // at run time, reading `cell_owned_by` through a table; hash-consing merged
    // `(cell_owned_by 4 6 north)` with `(legal north (defend 4 6))`, and the propnet backend
    // folded that prop into its legal output as if nothing else read it, so the table's row
    // read the false node: north could move onto its own pieces. Now the network plays as the
    // interpreter does.
    let text = game("four_way_battle").replacen("(coordinate 3)", "(3)", 1);
    assert!(!text.contains("(coordinate 3)"), "the edit applies");
    let outcome = check("four_way_battle~22.kif", &text);
    assert!(outcome.compared, "{outcome:?}");
}
