use super::*;
use gdl_runtime::toy::Countdown;

fn quiet(_: &Progress) {}

#[test]
fn a_countdown_is_well_formed_and_solved() {
    let r = validate(&Countdown::new(5), &ValidateOptions::default(), &mut quiet);
    assert_eq!(r.mode, Mode::Exhaustive);
    assert_eq!(r.states, 6, "5 down to 0");
    assert_eq!(r.terminal_states, 1);
    assert_eq!(r.depth, 3, "0 is three moves of 2, 2, 1 away");
    assert_eq!(r.findings, vec![]);
    assert_eq!(r.roles[0].weakly_winnable, Some(true));
    assert_eq!(r.roles[0].strongly_winnable, Some(true));
    assert_eq!(r.value, None, "one role");
    assert_eq!(r.exit_status(), 0);
    let j = json(&r, "countdown");
    assert!(j.starts_with("{\"game\":\"countdown\",\"mode\":\"exhaustive\",\"states\":6,"));
    assert!(
        j.ends_with("\"well_formed\":true,\"exit_status\":0}"),
        "{j}"
    );
    assert!(text(&r, "countdown").ends_with("countdown: well-formed (0 warning(s))\n"));
}

#[test]
fn past_the_state_limit_it_samples_and_cannot_decide() {
    let options = ValidateOptions {
        max_states: 3,
        duration: Duration::from_millis(200),
        ..ValidateOptions::default()
    };
    let r = validate_shared(&Countdown::new(50), &options, &mut quiet);
    assert_eq!(r.mode, Mode::Sampled);
    assert!(r.playouts > 0);
    assert_eq!(r.roles[0].weakly_winnable, Some(true));
    assert_eq!(r.roles[0].strongly_winnable, None);
    assert_eq!(r.exit_status(), 2);
    let shared = ValidateOptions {
        threads: 2,
        max_playout_steps: 10,
        ..options
    };
    let r = validate_shared(&Countdown::new(50), &shared, &mut quiet);
    let long = r.findings.iter().find(|f| f.kind == Kind::LongPlayout);
    assert!(long.is_some_and(|f| f.count > 0), "{:?}", r.findings);
}

#[test]
fn on_several_threads_the_graph_and_the_findings_are_the_same() {
    // Batches of the frontier split over three threads, numbered in the order of one.
    let game = Countdown::new(3000);
    let one = validate(&game, &ValidateOptions::default(), &mut quiet);
    let options = ValidateOptions {
        threads: 3,
        ..ValidateOptions::default()
    };
    let three = validate_shared(&game, &options, &mut quiet);
    assert_eq!(one.mode, Mode::Exhaustive);
    let shape = |r: &Report| {
        (
            r.mode,
            r.states,
            r.terminal_states,
            r.depth,
            r.value.clone(),
        )
    };
    assert_eq!(shape(&one), shape(&three));
    assert_eq!((one.states, one.depth), (3001, 1500));
    assert_eq!(one.findings, three.findings);
    assert_eq!(one.roles, three.roles);
}

#[test]
fn a_cancelled_validation_stops_and_says_so() {
    use std::sync::atomic::{AtomicBool, Ordering};
    // Cancelled before it starts: nothing explored past the initial state, no playout.
    let cancel = AtomicBool::new(true);
    let options = ValidateOptions::default();
    let r = validate_cancellable(&Countdown::new(50), &options, &mut quiet, &cancel);
    assert_eq!(r.mode, Mode::Sampled);
    assert_eq!(
        r.exhaustive_stop.as_deref(),
        Some("cancelled, after 1 states")
    );
    assert_eq!(r.playouts, 0);
    // Cancelled while sampling (the first progress line sets the flag): it stops long
    // before its minute is up.
    let cancel = AtomicBool::new(false);
    let options = ValidateOptions {
        max_states: 3,
        ..ValidateOptions::default()
    };
    let mut progress = |p: &Progress| {
        if p.phase == Phase::Sampling {
            cancel.store(true, Ordering::Relaxed);
        }
    };
    let r = validate_cancellable(&Countdown::new(50), &options, &mut progress, &cancel);
    assert!(cancel.load(Ordering::Relaxed));
    assert!(r.playouts > 0);
    assert!(r.seconds < 30.0, "{}", r.seconds);
}
