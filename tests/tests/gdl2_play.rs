//! GDL-II matches on the player side: the GDL-II fixtures played over HTTP with this test as
//! the manager (`( PLAY <id> <turn> <lastmove> <percepts> )`, the true state kept by the
//! interpreter, the other roles at random), every move of our player legal in the true state;
//! and the beliefs of [`BeliefPlayer`] only ever hold states consistent with what was seen.

use std::path::Path;
use std::time::{Duration, Instant};

use gdl_player::http::ServerOptions;
use gdl_player::{BeliefOptions, BeliefPlayer, BeliefSearch};
use gdl_runtime::{Game, SplitMix64};
use gdl_tests::{Gdl2Match, play_gdl2_match, post, serve_universal_player};
use gdlc::CheckOptions;
use gdlc::interp::Interpreter;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/gdl2")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The interpreter of `rules`.
fn interpreter(rules: &str) -> Interpreter {
    Interpreter::from_source(rules, &CheckOptions::default()).expect("the fixture")
}

/// A whole match of `rules` with our player (served in this process) as `role`: every reply
/// a legal move of the true state; STOP answered `done`. Returns the number of moves checked.
fn play_match(rules: &str, role: &str, seed: u64) -> usize {
    let addr = serve_universal_player(ServerOptions {
        margin: Duration::from_millis(700),
        ..ServerOptions::default()
    });
    let id = format!("gdl2.{role}.{seed}");
    let checked = play_gdl2_match(
        addr,
        Gdl2Match {
            id: &id,
            rules,
            role,
            seed,
            clocks: (1, 1),
            before_play: &mut |_| {},
        },
    );
    assert!(post(addr, "( INFO )").contains("available"));
    checked
}

#[test]
fn gdl2_matches_over_http_get_legal_moves() {
    let guess = fixture("guessNumber.kif");
    let blind = fixture("blindTicTacToe.kif");
    let mut checked = 0;
    for seed in 1..=2 {
        checked += play_match(&guess, "guesser", seed);
        checked += play_match(&blind, "xplayer", seed);
        checked += play_match(&blind, "oplayer", seed);
    }
    assert!(checked >= 20, "only {checked} moves");
}

/// guessNumber: after each guess and what it told, every particle's secret agrees with it.
#[test]
fn beliefs_agree_with_what_was_seen() {
    let game = interpreter(&fixture("guessNumber.kif"));
    let guesser = 0;
    assert_eq!(game.role_name(guesser), "guesser");
    let far = || Instant::now() + Duration::from_secs(5);
    let mut player = BeliefPlayer::new(&game, guesser, BeliefOptions::default());
    let noop = game.parse_move(guesser, "noop").expect("noop");
    // Turn 0: the random role picks; the guesser sees nothing.
    player.observe(&game, noop, &[], far());
    let secret_of = |s: &<Interpreter as Game>::State| -> u32 {
        let mut facts = Vec::new();
        game.write_state(s, &mut facts);
        facts
            .iter()
            .find_map(|f| f.strip_prefix("(secret ")?.strip_suffix(')')?.parse().ok())
            .expect("a secret")
    };
    let secrets = |p: &BeliefPlayer<Interpreter>| -> Vec<u32> {
        let mut s: Vec<u32> = p.particles().iter().map(secret_of).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    assert_eq!(
        secrets(&player),
        vec![1, 2, 3, 4, 5],
        "all secrets possible"
    );
    let guess = |n: u32| {
        game.parse_move(guesser, &format!("(guess {n})"))
            .expect("a guess")
    };
    player.observe(&game, guess(2), &["higher".to_string()], far());
    assert_eq!(secrets(&player), vec![3, 4, 5]);
    player.observe(&game, guess(5), &["lower".to_string()], far());
    assert_eq!(secrets(&player), vec![3, 4]);
    // Knowing that much, the player guesses one of them.
    let mv = player.choose(&game, Instant::now() + Duration::from_millis(300));
    let mv = mv.map(|m| game.move_text(guesser, m));
    assert!(
        mv.as_deref() == Some("(guess 3)") || mv.as_deref() == Some("(guess 4)"),
        "{mv:?}"
    );
    // Percepts no state can give: no particle fits, the player keeps its beliefs.
    player.observe(&game, guess(3), &["nonsense".to_string()], far());
    assert_eq!(secrets(&player), vec![3, 4]);
    assert!(player.stats().resampled);
}

/// Blind tic-tac-toe between two belief players (the `random` role drawn here): every game
/// ends. Once no line can be made, every move draws, and a player that broke the tie the same
/// way each turn tried the same cell the opponent holds for ever (the game has no step limit).
#[test]
fn belief_players_do_not_repeat_a_futile_try_for_ever() {
    let game = interpreter(&fixture("blindTicTacToe.kif"));
    let mut rng = SplitMix64::new(7);
    let mut moves = Vec::new();
    for seed in 0..6 {
        let mut players: Vec<Option<BeliefPlayer<Interpreter>>> = (0..game.role_count())
            .map(|r| {
                (!game.is_random_role(r)).then(|| {
                    let options = BeliefOptions {
                        seed: seed * 3 + r as u64,
                        particles: 16,
                        ..BeliefOptions::default()
                    };
                    BeliefPlayer::new(&game, r, options)
                })
            })
            .collect();
        let mut state = game.initial_state();
        let mut next = state.clone();
        let mut steps = 0;
        while !game.is_terminal(&state) {
            steps += 1;
            assert!(steps <= 300, "seed {seed}: no end after 300 steps");
            let mut joint = Vec::new();
            for (r, p) in players.iter_mut().enumerate() {
                match p {
                    Some(p) => joint.push(
                        p.choose(&game, Instant::now() + Duration::from_millis(10))
                            .expect("a move"),
                    ),
                    None => {
                        game.legal_moves(&state, r, &mut moves);
                        joint.push(moves[rng.below(moves.len())]);
                    }
                }
            }
            game.next_state(&state, &joint, &mut next);
            for (r, p) in players.iter_mut().enumerate() {
                if let Some(p) = p {
                    let mut seen = Vec::new();
                    game.percepts(&state, &joint, r, &mut seen);
                    p.observe(
                        &game,
                        joint[r],
                        &seen,
                        Instant::now() + Duration::from_secs(1),
                    );
                }
            }
            std::mem::swap(&mut state, &mut next);
        }
    }
}

/// A hidden number from 1 to 4; then `safe` (40 at once), a guess in the dark (`blind`: 100
/// if right, at once), or `peek` (see the number) and a guess (100 if right).
const PEEK: &str = "
(role me) (role random)
(init (step 0))
(value 1) (value 2) (value 3) (value 4)
(succ 0 1) (succ 1 2) (succ 2 3)
(<= (legal random (hide ?v)) (true (step 0)) (value ?v))
(<= (legal random noop) (not (true (step 0))))
(<= (legal me wait) (true (step 0)))
(<= (legal me peek) (true (step 1)))
(<= (legal me safe) (true (step 1)))
(<= (legal me (blind ?v)) (true (step 1)) (value ?v))
(<= (legal me (guess ?v)) (true (step 2)) (value ?v))
(<= (next (secret ?v)) (does random (hide ?v)))
(<= (next (secret ?v)) (true (secret ?v)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= (next safe) (does me safe))
(<= (next right) (does me (guess ?v)) (true (secret ?v)))
(<= (next right) (does me (blind ?v)) (true (secret ?v)))
(<= (next blind) (does me (blind ?v)))
(<= (sees me (secret ?v)) (does me peek) (true (secret ?v)))
(<= terminal (true safe))
(<= terminal (true blind))
(<= terminal (true (step 3)))
(<= (goal me 40) (true safe))
(<= (goal me 100) (true right))
(<= (goal me 0) (not (true safe)) (not (true right)))
(goal random 0)
";

/// The move chosen at the second step of [`PEEK`] by a belief player searching with `search`.
fn peek_choice(search: BeliefSearch) -> String {
    let game = interpreter(PEEK);
    let me = (0..game.role_count())
        .find(|&r| !game.is_random_role(r))
        .expect("a player role");
    let options = BeliefOptions {
        search,
        ..BeliefOptions::default()
    };
    let mut player = BeliefPlayer::new(&game, me, options);
    let wait = player
        .choose(&game, Instant::now() + Duration::from_millis(50))
        .expect("a move");
    player.observe(&game, wait, &[], Instant::now() + Duration::from_secs(1));
    let mv = player
        .choose(&game, Instant::now() + Duration::from_millis(300))
        .expect("a move");
    game.move_text(me, mv)
}

/// The tree over what our role will know plays the later guess as it will then know the
/// number, so it peeks; flat Monte Carlo guesses at random after its move, so it takes 40. (A
/// search of each sampled state alone would as soon guess in the dark: it sees the number.)
#[test]
fn the_tree_search_looks_before_it_guesses() {
    assert_eq!(peek_choice(BeliefSearch::Tree), "peek");
    assert_eq!(peek_choice(BeliefSearch::Flat), "safe");
}
