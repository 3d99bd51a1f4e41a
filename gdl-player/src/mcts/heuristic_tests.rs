//! Tests of the learnt evaluation: features from fact texts, the choice of the feature that
//! decides a toy game, the start clock's deadline, and the search with playouts cut short.

use std::time::{Duration, Instant};

use super::*;
use crate::{Mcts, MctsOptions, Player};
use gdl_runtime::RoleIndex;
use gdl_runtime::toy::Countdown;

fn names(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| t.to_string()).collect()
}

fn mask_of(features: &[Feature], name: &str) -> Option<u64> {
    features.iter().find(|f| f.name == name).map(|f| f.mask[0])
}

#[test]
fn facts_split_into_predicate_and_terms() {
    assert_eq!(
        split_fact("(cell 1 2 b)"),
        Some(("cell", vec!["1", "2", "b"]))
    );
    assert_eq!(
        split_fact("( at (pos 1 2)  white )"),
        Some(("at", vec!["(pos 1 2)", "white"]))
    );
    assert_eq!(split_fact("step"), Some(("step", vec![])));
    assert_eq!(split_fact("(cell 1 (2 b)"), None);
    assert_eq!(split_fact(""), None);
}

#[test]
fn features_count_facts_by_predicate_and_constants() {
    let facts = names(&[
        "(cell 1 1 x)",
        "(cell 1 2 o)",
        "(cell 2 1 x)",
        "(cell 2 2 x)",
        "(control x)",
        "(control o)",
        "(cell 2 3 o)",
    ]);
    let f = candidate_features(&facts, &["x", "o"]);
    assert_eq!(mask_of(&f, "(cell ? ? x)"), Some(0b1101));
    assert_eq!(mask_of(&f, "(cell 1 ? ?)"), Some(0b0011));
    assert_eq!(mask_of(&f, "(cell 2 ? x)"), Some(0b1100));
    assert_eq!(mask_of(&f, "(cell 2 ? ?)"), Some(0b100_1100));
    assert_eq!(mask_of(&f, "(control x)"), Some(0b01_0000));
    assert_eq!(mask_of(&f, "(cell ...3)"), Some(0b100_1111));
    // `(cell 1 ? o)`, `(cell ? 2 o)` and `(cell 1 2 ?)` count the same fact: given once.
    let o: Vec<&Feature> = f.iter().filter(|f| f.mask[0] == 0b0010).collect();
    assert_eq!(o.len(), 1);
    // The largest groups come first.
    assert!(
        f.windows(2)
            .all(|w| w[0].mask[0].count_ones() >= w[1].mask[0].count_ones())
    );
    assert_eq!(count(&[0b1101], &[0b0101]), 2);
}

fn share_of<'a>(features: &'a [Feature], name: &str) -> Option<&'a Feature> {
    features
        .iter()
        .find(|f| f.name == name && f.whole.is_some())
}

#[test]
fn shares_divide_a_roles_facts_by_every_roles() {
    let facts = names(&[
        "(cell 1 1 x)",
        "(cell 1 2 o)",
        "(cell 2 1 x)",
        "(cell 2 2 x)",
        "(mark x)",
    ]);
    let f = candidate_features(&facts, &["x", "o"]);
    let x = share_of(&f, "(cell ? ? x) / (cell ? ? *)").expect("x's share of the cells");
    assert_eq!(x.mask[0], 0b1101);
    assert_eq!(
        x.whole.as_ref().map(|w| (w.mask[0], w.empty)),
        Some((0b1111, 0.5))
    );
    assert_eq!(x.value(&[0b1111]), 0.75);
    assert_eq!(x.value(&[0b0011]), 0.5);
    assert_eq!(x.value(&[0b1_0000]), 0.5, "no cell set: an even share");
    // With two roles, o's share is one less x's: not a second feature.
    assert!(f.iter().all(|f| !f.name.starts_with("(cell ? ? o) /")));
    // Only x has a mark: its share would be 1 wherever it is set.
    assert!(f.iter().all(|f| !f.name.starts_with("(mark x) /")));
    // Without roles, counts only.
    let counts = candidate_features(&facts, &[]);
    assert!(counts.iter().all(|f| f.whole.is_none()));
    assert_eq!(counts.len(), f.iter().filter(|f| f.whole.is_none()).count());
}

#[test]
fn shares_of_three_roles_are_each_kept() {
    let facts = names(&["(at a 1)", "(at b 2)", "(at c 3)", "(at a 4)"]);
    let f = candidate_features(&facts, &["a", "b", "c"]);
    for role in ["a", "b", "c"] {
        let name = format!("(at {role} ?) / (at * ?)");
        let share = share_of(&f, &name).expect("each role's share");
        assert_eq!(share.whole.as_ref().map(|w| w.empty), Some(1.0 / 3.0));
    }
    let a = share_of(&f, "(at a ?) / (at * ?)").expect("a's share");
    assert_eq!(a.value(&[0b1111]), 0.5);
}

/// Ten coins are tossed: `heads` (the first role's move, 0 for heads, 1 for tails) fixes the
/// coin of the step; the second role flips one of ten bits of noise at each step. The first
/// role wins when more than five coins show heads, draws at five.
struct Coins;

const COINS: usize = 10;

impl Game for Coins {
    type State = Vec<u64>;
    type Move = u8;
    fn role_count(&self) -> usize {
        2
    }
    fn role_name(&self, role: RoleIndex) -> &str {
        ["tosser", "noise"][role.min(1)]
    }
    fn initial_state(&self) -> Vec<u64> {
        vec![0]
    }
    fn is_terminal(&self, state: &Vec<u64>) -> bool {
        (state[0] & 0xf_ffff).count_ones() as usize == COINS
    }
    fn legal_moves(&self, _state: &Vec<u64>, role: RoleIndex, out: &mut Vec<u8>) {
        out.clear();
        out.extend(0..[2, COINS as u8][role.min(1)]);
    }
    fn next_state(&self, state: &Vec<u64>, joint: &[u8], next: &mut Vec<u64>) {
        let step = (state[0] & 0xf_ffff).count_ones() as usize;
        let coin = 1u64 << (2 * step + usize::from(joint[0]));
        next.clear();
        next.push(state[0] | coin ^ (1 << (20 + joint[1])));
    }
    fn goal(&self, state: &Vec<u64>, role: RoleIndex) -> Option<i32> {
        let heads = (0..COINS).filter(|i| state[0] >> (2 * i) & 1 != 0).count();
        let first = match heads {
            h if h > COINS / 2 => 100,
            h if h == COINS / 2 => 50,
            _ => 0,
        };
        Some(if role == 0 { first } else { 100 - first })
    }
    fn write_move(&self, _role: RoleIndex, mv: u8, out: &mut String) {
        out.push_str(&mv.to_string());
    }
    fn parse_move(&self, _role: RoleIndex, text: &str) -> Option<u8> {
        text.parse().ok()
    }
    fn write_state(&self, _state: &Vec<u64>, _out: &mut Vec<String>) {}
    fn fact_names(&self) -> Option<Vec<String>> {
        let coins =
            (0..COINS).flat_map(|i| [format!("(coin {i} heads)"), format!("(coin {i} tails)")]);
        Some(
            coins
                .chain((0..COINS).map(|j| format!("(noise {j})")))
                .collect(),
        )
    }
    fn fact_bits<'a>(&self, state: &'a Vec<u64>) -> Option<&'a [u64]> {
        Some(state)
    }
}

#[test]
fn the_feature_that_decides_the_game_is_learnt() {
    let mut rng = SplitMix64::new(3);
    let far = Instant::now() + Duration::from_secs(20);
    let h = learn(&Coins, &mut rng, far, HeuristicOptions::default()).expect("an evaluation");
    let first = &h.features[0].name;
    assert!(
        first == "(coin ? heads)" || first == "(coin ? tails)",
        "{:?}",
        h.features
    );
    assert!(h.r2 >= MIN_R2, "R2 {}", h.r2);
    assert!(h.features.iter().all(|f| !f.name.starts_with("(noise")) || h.features.len() > 1);
    // Heads are good for the tosser and bad for the other role, at the end of a game.
    let all_heads = [0x5_5555u64];
    let all_tails = [0xa_aaaau64];
    let mut v = Vec::new();
    h.evaluate(&all_heads, &mut v);
    assert!(v[0] > 0.8 && v[1] < 0.2, "{v:?}");
    h.evaluate(&all_tails, &mut v);
    assert!(v[0] < 0.2 && v[1] > 0.8, "{v:?}");
    // Both roles choose at every step: `auto` leaves the evaluation out, however well it
    // predicts.
    assert_eq!(h.simultaneous, 1.0);
    assert!(!h.predicts());
}

#[test]
fn auto_uses_an_evaluation_that_predicts_in_a_game_of_turns() {
    let h = Heuristic {
        features: Vec::new(),
        weights: Vec::new(),
        r2: 0.33,
        ceiling: 0.42,
        samples: 1_000,
        cutoff: 8,
        simultaneous: 0.0,
    };
    assert!(h.predicts());
    let weak = Heuristic {
        r2: 0.1,
        ..h.clone()
    };
    assert!(!weak.predicts(), "below MIN_R2");
    let far_below = Heuristic {
        ceiling: 0.9,
        ..h.clone()
    };
    assert!(!far_below.predicts(), "below MIN_SHARE of the ceiling");
    let mostly_simultaneous = Heuristic {
        simultaneous: 0.6,
        ..h.clone()
    };
    assert!(!mostly_simultaneous.predicts(), "above MAX_SIMULTANEOUS");
    let sometimes = Heuristic {
        simultaneous: 0.4,
        ..h
    };
    assert!(sometimes.predicts());
}

#[test]
fn learning_ends_before_the_start_clock() {
    for ms in [0, 30, 300] {
        let begun = Instant::now();
        let deadline = begun + Duration::from_millis(ms);
        let options = HeuristicOptions {
            mode: HeuristicMode::On,
            cutoff: 4,
            shares: true,
        };
        let h = at_start(&Coins, options, 1, deadline);
        if ms == 0 {
            assert!(h.is_none(), "no time, no samples");
            assert!(begun.elapsed() < Duration::from_millis(50));
        } else {
            assert!(Instant::now() <= deadline, "{ms} ms: {:?}", begun.elapsed());
        }
    }
}

#[test]
fn no_evaluation_without_fact_bits_or_when_off() {
    let far = Instant::now() + Duration::from_secs(1);
    let on = HeuristicOptions {
        mode: HeuristicMode::On,
        cutoff: 4,
        shares: true,
    };
    assert!(at_start(&Countdown::new(10), on, 1, far).is_none());
    let off = HeuristicOptions {
        mode: HeuristicMode::Off,
        ..on
    };
    assert!(at_start(&Coins, off, 1, far).is_none());
}

#[test]
fn the_search_with_cut_playouts_finds_the_winning_toss() {
    let mut p = Mcts::new(MctsOptions {
        max_iterations: Some(2_000),
        heuristic: HeuristicOptions {
            mode: HeuristicMode::On,
            cutoff: 0,
            shares: true,
        },
        ..MctsOptions::default()
    });
    p.start(&Coins, 0, Instant::now() + Duration::from_millis(300));
    assert!(p.heuristic().is_some());
    let state = Coins.initial_state();
    let far = Instant::now() + Duration::from_secs(20);
    assert_eq!(p.choose(&Coins, &state, far), Some(0), "heads");
}

#[test]
fn every_tree_of_the_parallel_search_learns_the_evaluation_at_the_start() {
    // The HTTP players run `ParallelMcts`: its start must learn what `Mcts::start` learns.
    let mut p = crate::ParallelMcts::new(
        MctsOptions {
            max_iterations: Some(500),
            heuristic: HeuristicOptions {
                mode: HeuristicMode::On,
                cutoff: 0,
                shares: true,
            },
            ..MctsOptions::default()
        },
        2,
    );
    p.start(&Coins, 0, Instant::now() + Duration::from_millis(300));
    let state = Coins.initial_state();
    let far = Instant::now() + Duration::from_secs(20);
    assert_eq!(p.choose(&Coins, &state, far), Some(0), "heads");
    let report = p.report().unwrap_or_default();
    assert!(report.contains("heuristic R2"), "{report}");
}
