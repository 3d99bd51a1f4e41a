//! Tests of the choices made for a match: the measurement at the start clock
//! ([`tuning`]), decisive playouts in the search, and the move played when every move loses.

use std::time::{Duration, Instant};

use super::tests::{Nim, Pos, Table, TableState, To, far, matching_pennies, turn_of_first};
use super::tuning::{Candidate, TuningOptions, tune};
use super::*;

fn candidates() -> Vec<Candidate> {
    tuning::playout_candidates(&MctsOptions::default())
}

#[test]
fn the_measurement_keeps_its_deadline_and_picks_a_candidate() {
    // Two roles in turn, one role, three roles, simultaneous moves.
    let games = [
        Table {
            roles: vec!["first", "second"],
            positions: vec![turn_of_first(3, |_| To::Long)],
            long: 40,
        },
        Table {
            roles: vec!["only"],
            positions: vec![
                Pos::Moves(vec![3], vec![To::At(1), To::At(2), To::At(1)]),
                Pos::End(vec![60]),
                Pos::End(vec![20]),
            ],
            long: 0,
        },
        Table {
            roles: vec!["a", "b", "c"],
            positions: vec![
                Pos::Moves(vec![2, 1, 1], vec![To::Long, To::At(1)]),
                Pos::End(vec![40, 40, 20]),
            ],
            long: 30,
        },
        matching_pennies(),
    ];
    let names: Vec<String> = candidates().into_iter().map(|c| c.name).collect();
    for game in &games {
        let began = Instant::now();
        let deadline = began + Duration::from_millis(300);
        let tuned = tune(game, &candidates(), &TuningOptions::default(), deadline);
        // It takes half the time to the deadline (a busy machine may delay it a little).
        assert!(
            Instant::now() < deadline,
            "{:?}: {}",
            game.roles,
            tuned.summary
        );
        assert!(names.contains(&tuned.chosen), "{}", tuned.summary);
        assert_eq!(tuned.options.playout.name(), tuned.chosen);
        // Games were played (the summary counts them per candidate).
        assert!(tuned.summary.contains('/'), "{}", tuned.summary);
    }
    // No time: the default, at once.
    let game = &games[0];
    let tuned = tune(
        game,
        &candidates(),
        &TuningOptions::default(),
        Instant::now(),
    );
    assert_eq!(tuned.chosen, "uniform");
}

#[test]
fn the_measurement_chooses_a_clearly_better_candidate() {
    // The default's playouts are cut at once (every playout scores 0.5): in the long game of
    // 16 turns it plays blind where the other searches; the other is chosen.
    let game = Table {
        roles: vec!["first", "second"],
        positions: vec![turn_of_first(2, |_| To::Long)],
        long: 16,
    };
    let blind = Candidate {
        name: "blind".into(),
        options: MctsOptions {
            max_playout_steps: 0,
            exploration: Exploration::Fixed(0.0),
            ..MctsOptions::default()
        },
    };
    let sighted = Candidate {
        name: "sighted".into(),
        options: MctsOptions::default(),
    };
    // Short moves, so that enough games fit on a busy machine.
    let tuning = TuningOptions {
        max_move_time: Duration::from_millis(1),
        min_games: 4,
        ..TuningOptions::default()
    };
    let tuned = tune(
        &game,
        &[blind, sighted],
        &tuning,
        Instant::now() + Duration::from_millis(3000),
    );
    assert_eq!(tuned.chosen, "sighted", "{}", tuned.summary);
}

#[test]
fn auto_measures_at_start_and_reports_its_choice() {
    let game = Nim { pile: 12 };
    let auto = MctsOptions {
        playout: PlayoutPolicy::Auto,
        ..MctsOptions::default()
    };
    let mut p = Mcts::new(auto.clone());
    let deadline = Instant::now() + Duration::from_millis(200);
    p.start(&game, 0, deadline);
    assert!(Instant::now() < deadline + Duration::from_millis(20));
    let report = p.report().unwrap_or_default();
    assert!(report.contains("playout auto: "), "{report}");
    assert!(p.choose(&game, &(12, 0), far()).is_some());
    let mut parallel = ParallelMcts::new(auto, 2);
    parallel.start(&game, 1, Instant::now() + Duration::from_millis(200));
    assert!(parallel.report().unwrap_or_default().contains("chosen"));
    assert_eq!(PlayoutPolicy::parse("auto"), Some(PlayoutPolicy::Auto));
    assert_eq!(
        PlayoutPolicy::parse("decisive"),
        Some(PlayoutPolicy::Decisive)
    );
}

#[test]
fn auto_plays_anti_decisive_playouts_where_their_checks_change_moves() {
    let auto = MctsOptions {
        playout: PlayoutPolicy::Auto,
        ..MctsOptions::default()
    };
    let tuning = TuningOptions::default();
    let deadline = || Instant::now() + Duration::from_millis(400);
    // From a pile of 300 a playout has about 200 turns, of which the checks change one or two
    // near the end (the mover takes the last objects, or does not leave them to the other): a
    // small share of turns, but most playouts: anti-decisive, without games. The roles take
    // turns: in NST's order.
    let long = tuning::auto_playout(&Nim { pile: 300 }, &auto, &tuning, deadline());
    let long = long.expect("auto measures");
    assert_eq!(long.chosen, "anti-decisive-nst", "{}", long.summary);
    assert_eq!(long.options.playout, PlayoutPolicy::AntiDecisiveNst);
    assert!(
        long.summary.contains("playouts changed")
            && long.summary.contains("0.0% of ")
            && long.summary.contains("steps with two roles choosing"),
        "{}",
        long.summary
    );
    // Simultaneous moves have no turn to check, nor a move before to reply to: uniform
    // playouts, without games.
    let simultaneous = matching_pennies();
    let other = tuning::auto_playout(&simultaneous, &auto, &tuning, deadline());
    let other = other.expect("auto measures");
    assert!(
        other.chosen == "uniform" && other.options.playout == PlayoutPolicy::Uniform,
        "{}",
        other.summary
    );
    assert!(
        other.summary.contains("not anti-decisive"),
        "{}",
        other.summary
    );
    // Another policy asked: nothing measured.
    assert!(
        tuning::auto_playout(
            &Nim { pile: 12 },
            &MctsOptions::default(),
            &tuning,
            deadline()
        )
        .is_none()
    );
}

#[test]
fn auto_orders_playouts_by_nst_where_the_roles_take_turns() {
    // Three turns, each of three moves, and a draw: no win for the checks to take or avoid.
    let game = Table {
        roles: vec!["first", "second"],
        positions: vec![
            turn_of_first(3, |_| To::At(1)),
            Pos::Moves(vec![1, 3], vec![To::At(2); 3]),
            turn_of_first(3, |_| To::At(3)),
            Pos::End(vec![50, 50]),
        ],
        long: 0,
    };
    let auto = MctsOptions {
        playout: PlayoutPolicy::Auto,
        ..MctsOptions::default()
    };
    // A tree of a few nodes: a larger one holds the game, and its playouts have no steps.
    let tuning = TuningOptions {
        max_nodes: 4,
        ..TuningOptions::default()
    };
    let deadline = Instant::now() + Duration::from_millis(400);
    let tuned = tuning::auto_playout(&game, &auto, &tuning, deadline).expect("auto measures");
    assert_eq!(tuned.chosen, "nst", "{}", tuned.summary);
    assert_eq!(tuned.options.playout, PlayoutPolicy::Nst);
    assert!(
        tuned.summary.contains("not anti-decisive"),
        "{}",
        tuned.summary
    );
}

#[test]
fn decisive_playouts_win_at_nim() {
    // With decisive playouts a pile of 1 or 2 is always taken by the mover.
    let game = Nim { pile: 14 };
    for policy in [PlayoutPolicy::Decisive, PlayoutPolicy::AntiDecisive] {
        let mut p = Mcts::new(MctsOptions {
            max_iterations: Some(2000),
            playout: policy,
            ..MctsOptions::default()
        });
        p.start(&game, 0, Instant::now());
        assert_eq!(p.choose(&game, &(14, 0), far()), Some(2), "{policy:?}");
    }
}

#[test]
fn when_every_move_loses_the_longest_resistance_is_played() {
    // Move 0 loses after four more turns; moves 1 and 2 lose at once.
    let game = Table {
        roles: vec!["first", "second"],
        positions: vec![
            turn_of_first(3, |i| if i == 0 { To::At(2) } else { To::At(1) }),
            Pos::End(vec![0, 100]),
            Pos::Moves(vec![1, 2], vec![To::At(3), To::At(3)]),
            turn_of_first(2, |_| To::At(4)),
            Pos::Moves(vec![1, 2], vec![To::At(1), To::At(1)]),
        ],
        long: 0,
    };
    for seed in 0..10 {
        let mut p = Mcts::new(MctsOptions {
            max_iterations: Some(1000),
            seed,
            ..MctsOptions::default()
        });
        p.start(&game, 0, Instant::now());
        assert_eq!(p.choose(&game, &TableState::At(0), far()), Some(0));
        assert!(
            p.stats().proven && p.stats().value == 0.0,
            "{:?}",
            p.stats()
        );
    }
}

/// Nim for three roles in turn: whoever takes the last wins (100, the others 0).
struct ThreeNim;

impl Game for ThreeNim {
    /// (pile, role to move)
    type State = (u32, usize);
    type Move = u8;
    fn role_count(&self) -> usize {
        3
    }
    fn role_name(&self, role: RoleIndex) -> &str {
        ["first", "second", "third"][role.min(2)]
    }
    fn initial_state(&self) -> (u32, usize) {
        (30, 0)
    }
    fn is_terminal(&self, s: &(u32, usize)) -> bool {
        s.0 == 0
    }
    fn legal_moves(&self, s: &(u32, usize), role: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
        match (role == s.1, s.0 >= 2) {
            (false, _) => out.push(0),
            (true, false) => out.push(1),
            (true, true) => out.extend([1, 2]),
        }
    }
    fn next_state(&self, s: &(u32, usize), joint: &[u8], next: &mut (u32, usize)) {
        *next = (s.0.saturating_sub(u32::from(joint[s.1])), (s.1 + 1) % 3);
    }
    fn goal(&self, s: &(u32, usize), role: RoleIndex) -> Option<i32> {
        Some(if (role + 1) % 3 == s.1 { 100 } else { 0 })
    }
    fn write_move(&self, _role: RoleIndex, mv: u8, out: &mut String) {
        out.push_str(&mv.to_string());
    }
    fn parse_move(&self, _role: RoleIndex, _text: &str) -> Option<u8> {
        None
    }
    fn write_state(&self, _s: &(u32, usize), _out: &mut Vec<String>) {}
}

#[test]
fn auto_plays_decisive_playouts_with_three_roles() {
    let auto = MctsOptions {
        playout: PlayoutPolicy::Auto,
        ..MctsOptions::default()
    };
    let deadline = Instant::now() + Duration::from_millis(400);
    let tuned = tuning::auto_playout(&ThreeNim, &auto, &TuningOptions::default(), deadline);
    let tuned = tuned.expect("auto measures");
    // The mover who can take the last two takes them: anti-decisive checks would look at the
    // next mover's wins only, NST's pairs at the previous role's moves.
    assert_eq!(tuned.chosen, "decisive", "{}", tuned.summary);
    assert!(tuned.summary.contains("decisive at"), "{}", tuned.summary);
}

#[test]
fn a_short_start_clock_times_both_playouts() {
    let auto = MctsOptions {
        playout: PlayoutPolicy::Auto,
        ..MctsOptions::default()
    };
    // 50 ms for the timings (half the time left), as long as one timing takes when it can:
    // each policy gets its half.
    let deadline = Instant::now() + Duration::from_millis(100);
    let tuned = tuning::auto_playout(
        &Nim { pile: 300 },
        &auto,
        &TuningOptions::default(),
        deadline,
    );
    let tuned = tuned.expect("auto measures");
    assert_eq!(tuned.chosen, "anti-decisive-nst", "{}", tuned.summary);
}
