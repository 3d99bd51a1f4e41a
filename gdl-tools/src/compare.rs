//! Differential testing: two engines of one game (compiled code and the reference interpreter,
//! say) must agree at every step of many seeded random playouts.
//!
//! Both engines play the same playouts: at every step each role's move is chosen by the
//! seeded chooser of the reference traces ([`crate::trace`]) over that role's legal moves
//! *sorted by text*, so two engines that agree so far choose the same joint move, whatever
//! their internal move handles. A playout is recorded as its trace (state facts, each role's
//! legal moves, the joint move, terminal and goals, all as sorted text), with the GDL-II
//! extras of [`TraceExtras`] (which roles are `random`, every role's percepts after every
//! joint move, and every goal value of each role at the end, so that several values are told
//! from none; [`reference_trace`] drops them; see [`playout_record`]), and two engines agree when their records are equal. The first
//! difference is reported as a [`Mismatch`] that says what differs (state, a role's legal
//! moves or percepts, terminal, goals) and how.
//!
//! Records are plain text so that the two engines can live in different processes: a compiled
//! game's binary prints its records (`traces` sub-command of [`crate::cli`]), and a process
//! that has the interpreter compares them with [`compare_records`]. [`compare`] does both
//! sides in one process.

use std::fmt;
use std::ops::RangeInclusive;

use crate::trace::{TraceExtras, TraceOptions, write_trace_with};
use gdl_runtime::Game;

/// Options of [`compare`].
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// The seeds of the playouts, one playout each.
    pub seeds: RangeInclusive<u64>,
    /// A playout longer than this ends with an `error:` line (in both records alike).
    pub max_steps: usize,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            seeds: 1..=100,
            max_steps: DEFAULT_MAX_STEPS,
        }
    }
}

/// The step limit of [`CompareOptions::default`].
pub const DEFAULT_MAX_STEPS: usize = 10_000;

/// What two engines did in agreement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompareStats {
    pub playouts: u64,
    /// States compared, over all playouts.
    pub states: u64,
}

/// The first point where two engines disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The seed of the playout.
    pub seed: u64,
    /// The step (`None` before step 0: the roles, or the seed line).
    pub step: Option<usize>,
    /// What differs.
    pub kind: MismatchKind,
    /// The names of the two engines (`compiled`, `interpreted`).
    pub labels: [String; 2],
    /// The two records' lines at the difference (empty where a record ended).
    pub lines: [String; 2],
}

/// What a [`Mismatch`] is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MismatchKind {
    Roles,
    /// The facts of the state.
    State,
    /// One role's legal moves.
    Legal {
        role: String,
    },
    /// One engine says terminal, the other does not.
    Terminal,
    /// The goal values at a terminal state.
    Goals,
    /// GDL-II: what one role sees after a joint move.
    Percepts {
        role: String,
    },
    /// Anything else: a record that ends early, an error line, a chosen move.
    Other,
}

impl Mismatch {
    /// Items (facts, moves, goal values) in one line and not the other: `[only left, only
    /// right]`.
    pub fn differences(&self) -> [Vec<&str>; 2] {
        let items = |line| match self.kind {
            // The other record may have no `sees` line there: it sees nothing.
            MismatchKind::Percepts { .. } if !line_starts(line, "sees ") => Vec::new(),
            _ => line_items(line),
        };
        let (a, b) = (items(&self.lines[0]), items(&self.lines[1]));
        [
            a.iter().filter(|x| !b.contains(x)).copied().collect(),
            b.iter().filter(|x| !a.contains(x)).copied().collect(),
        ]
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seed {}", self.seed)?;
        if let Some(step) = self.step {
            write!(f, ", step {step}")?;
        }
        let what = match &self.kind {
            MismatchKind::Roles => "roles differ".to_string(),
            MismatchKind::State => "states differ".to_string(),
            MismatchKind::Legal { role } => format!("legal moves of {role} differ"),
            MismatchKind::Terminal => "one engine says terminal, the other does not".to_string(),
            MismatchKind::Goals => "goal values differ".to_string(),
            MismatchKind::Percepts { role } => format!("percepts of {role} differ"),
            MismatchKind::Other => "records differ".to_string(),
        };
        write!(f, ": {what}")?;
        let [only_a, only_b] = self.differences();
        let shown = |items: &[&str]| {
            const MAX: usize = 6;
            let mut s = items
                .iter()
                .take(MAX)
                .copied()
                .collect::<Vec<_>>()
                .join(" ");
            if items.len() > MAX {
                s.push_str(&format!(" ... ({} in all)", items.len()));
            }
            s
        };
        match self.kind {
            MismatchKind::State | MismatchKind::Legal { .. } | MismatchKind::Percepts { .. } => {
                write!(
                    f,
                    "; only {}: [{}]; only {}: [{}]",
                    self.labels[0],
                    shown(&only_a),
                    self.labels[1],
                    shown(&only_b)
                )
            }
            _ => {
                let cut = |s: &str| -> String { s.chars().take(200).collect() };
                write!(
                    f,
                    "; {}: `{}`; {}: `{}`",
                    self.labels[0],
                    cut(&self.lines[0]),
                    self.labels[1],
                    cut(&self.lines[1])
                )
            }
        }
    }
}

impl std::error::Error for Mismatch {}

/// The record of one seeded playout: its trace ([`crate::trace`]) with the GDL-II lines of
/// [`TraceExtras::percepts`], followed, when the playout could not be finished, by a line
/// `error: ...`.
pub fn playout_record<G: Game>(game: &G, seed: u64, max_steps: usize) -> String {
    playout_record_with(game, seed, max_steps, &RECORD_EXTRAS)
}

/// The extra lines of a record ([`playout_record`]).
pub const RECORD_EXTRAS: TraceExtras = TraceExtras {
    percepts: true,
    goal_values: true,
    random_moves: false,
};

/// [`playout_record`] with `extras`: the `traces` of a compiled game's binary add
/// [`TraceExtras::random_moves`] to [`RECORD_EXTRAS`] (the same record, or one that ends in
/// an error).
pub fn playout_record_with<G: Game>(
    game: &G,
    seed: u64,
    max_steps: usize,
    extras: &TraceExtras,
) -> String {
    let mut out = String::new();
    if let Err(e) = write_trace_with(game, &TraceOptions { seed, max_steps }, extras, &mut out) {
        out.push_str(&format!("error: {e}\n"));
    }
    out
}

/// A record without the lines of [`TraceExtras`] (`random R`, `sees R K: ...`,
/// `goal-values R K: ...`): the trace in the reference format, to compare with a reference
/// trace.
pub fn reference_trace(record: &str) -> String {
    record
        .split_inclusive('\n')
        .filter(|line| {
            !line.starts_with("random ")
                && !line.starts_with("sees ")
                && !line.starts_with("goal-values ")
        })
        .collect()
}

/// Splits text holding several records (as the `traces` sub-command prints them) into the
/// records, each starting with its `roles` line.
pub fn split_records(text: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("roles") {
            starts.push(offset);
        }
        offset += line.len();
    }
    starts.push(text.len());
    starts.windows(2).map(|w| &text[w[0]..w[1]]).collect()
}

/// Compares two records of the playout of `seed`; `labels` name the engines that made them.
pub fn compare_records(
    seed: u64,
    a: &str,
    b: &str,
    labels: [&str; 2],
) -> Result<(), Box<Mismatch>> {
    let mut step = None;
    let (mut la, mut lb) = (a.lines(), b.lines());
    loop {
        let (x, y) = (la.next(), lb.next());
        if x == y {
            match x {
                None => return Ok(()),
                Some(line) => {
                    if let Some(n) = line.strip_prefix("step ") {
                        step = n.parse().ok();
                    }
                    continue;
                }
            }
        }
        let (x, y) = (x.unwrap_or(""), y.unwrap_or(""));
        let kind = classify(x, y);
        return Err(Box::new(Mismatch {
            seed,
            step,
            kind,
            labels: labels.map(str::to_string),
            lines: [x.to_string(), y.to_string()],
        }));
    }
}

/// What two differing record lines are about.
fn classify(x: &str, y: &str) -> MismatchKind {
    let word = |s: &str| s.split(' ').next().unwrap_or("").to_string();
    let (wx, wy) = (word(x), word(y));
    match (wx.as_str(), wy.as_str()) {
        ("roles", "roles") => MismatchKind::Roles,
        ("state", "state") => MismatchKind::State,
        ("legal", "legal") => {
            let role = |s: &str| s.split(' ').nth(1).unwrap_or("").to_string();
            if role(x) == role(y) {
                MismatchKind::Legal { role: role(x) }
            } else {
                MismatchKind::Other
            }
        }
        ("terminal", "terminal") | ("goal-values", "goal-values") => MismatchKind::Goals,
        ("sees", _) | (_, "sees") => {
            let role = |s: &str| s.split(' ').nth(1).unwrap_or("").to_string();
            let (rx, ry) = (role(x), role(y));
            if wx == wy && rx != ry {
                // Each sees something the other does not, for different roles.
                MismatchKind::Other
            } else {
                MismatchKind::Percepts {
                    role: if wx == "sees" { rx } else { ry },
                }
            }
        }
        ("random", _) | (_, "random") => MismatchKind::Roles,
        ("terminal", "legal") | ("legal", "terminal") => MismatchKind::Terminal,
        _ => MismatchKind::Other,
    }
}

/// Plays the playouts of `options.seeds` with both engines and compares their records.
pub fn compare<A: Game, B: Game>(
    a: &A,
    b: &B,
    labels: [&str; 2],
    options: &CompareOptions,
) -> Result<CompareStats, Box<Mismatch>> {
    let mut stats = CompareStats::default();
    for seed in options.seeds.clone() {
        let ra = playout_record(a, seed, options.max_steps);
        let rb = playout_record(b, seed, options.max_steps);
        compare_records(seed, &ra, &rb, labels)?;
        stats.playouts += 1;
        stats.states += ra.lines().filter(|l| l.starts_with("step ")).count() as u64;
    }
    Ok(stats)
}

/// The items of a record line: the facts of a `state` line, the moves of a `legal` line, the
/// percepts of a `sees` line, the goal values of a `terminal` line.
fn line_items(line: &str) -> Vec<&str> {
    let body = match line.split_once(':') {
        Some((_, rest))
            if ["legal ", "sees ", "goal-values "]
                .iter()
                .any(|p| line.starts_with(p)) =>
        {
            rest.trim_start()
        }
        _ => line.split_once(' ').map_or("", |(_, rest)| rest),
    };
    split_terms(body)
}

fn line_starts(line: &str, prefix: &str) -> bool {
    line.starts_with(prefix)
}

/// Splits a list of terms separated by single spaces (`(cell 1 1 b) (control x)`) into the
/// terms, keeping each parenthesised term whole.
fn split_terms(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 => {
                if i > start {
                    out.push(&s[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gdl_runtime::toy::Countdown;

    #[test]
    fn an_engine_agrees_with_itself() {
        let g = Countdown::new(7);
        let stats = compare(&g, &g, ["a", "b"], &CompareOptions::default()).unwrap();
        assert_eq!(stats.playouts, 100);
        assert!(stats.states >= 100 * 5);
    }

    #[test]
    fn a_random_move_other_than_the_listed_one_stops_the_checked_record() {
        let extras = TraceExtras {
            random_moves: true,
            ..RECORD_EXTRAS
        };
        let good = Countdown::new(7);
        let checked = playout_record_with(&good, 1, 100, &extras);
        assert_eq!(checked, playout_record(&good, 1, 100));
        let broken = Countdown {
            draws_first: true,
            ..good
        };
        // The first draws of seed 1 pick `(minus 2)` somewhere: the broken override differs.
        let record = playout_record_with(&broken, 1, 100, &extras);
        assert!(record.contains("error: at step "), "{record}");
        assert!(
            record.contains("the random legal move of role only"),
            "{record}"
        );
        assert!(!playout_record(&broken, 1, 100).contains("error"));
    }

    #[test]
    fn a_random_step_other_than_the_default_one_stops_the_checked_record() {
        let extras = TraceExtras {
            random_moves: true,
            ..RECORD_EXTRAS
        };
        let good = Countdown::new(7);
        assert_eq!(
            playout_record_with(&good, 1, 100, &extras),
            playout_record(&good, 1, 100)
        );
        let broken = Countdown {
            steps_by_one: true,
            ..good
        };
        // The first draws of seed 1 pick `(minus 2)` somewhere: the broken step differs.
        let record = playout_record_with(&broken, 1, 100, &extras);
        assert!(record.contains("error: at step "), "{record}");
        assert!(record.contains("the random step is not"), "{record}");
        assert!(!playout_record(&broken, 1, 100).contains("error"));
    }

    #[test]
    fn a_different_legal_set_is_found_and_explained() {
        let good = Countdown::new(7);
        let bad = Countdown {
            bug_at: Some(7),
            ..good
        };
        let m = compare(
            &good,
            &bad,
            ["compiled", "interpreted"],
            &CompareOptions::default(),
        )
        .unwrap_err();
        assert_eq!(m.seed, 1);
        assert_eq!(m.step, Some(0));
        assert_eq!(
            m.kind,
            MismatchKind::Legal {
                role: "only".into()
            }
        );
        assert_eq!(
            m.to_string(),
            "seed 1, step 0: legal moves of only differ; only compiled: [(minus 2)]; only \
             interpreted: []"
        );
        let m = compare_records(1, "legal r 0:\n", "legal r 1: noop\n", ["a", "b"]).unwrap_err();
        assert_eq!(m.differences(), [Vec::<&str>::new(), vec!["noop"]]);
    }

    #[test]
    fn records_split_and_terms_split() {
        let g = Countdown::new(3);
        let text = format!("{}{}", playout_record(&g, 1, 10), playout_record(&g, 2, 10));
        let records = split_records(&text);
        assert_eq!(records.len(), 2);
        assert_eq!(records[1], playout_record(&g, 2, 10));
        assert_eq!(
            split_terms("(cell 1 (f a) b) noop (x)"),
            ["(cell 1 (f a) b)", "noop", "(x)"]
        );
    }

    /// A countdown whose role sees the parity of the count it moves from (or nothing, or
    /// the wrong parity at 3), and is random or not.
    struct Seeing {
        game: Countdown,
        sees: bool,
        wrong_at_3: bool,
        random: bool,
        /// Goal values in place of the countdown's (several, or none).
        goals: Option<&'static [i32]>,
    }

    impl Game for Seeing {
        type State = u32;
        type Move = u8;
        fn role_count(&self) -> usize {
            1
        }
        fn role_name(&self, _role: usize) -> &str {
            "only"
        }
        fn initial_state(&self) -> u32 {
            self.game.initial_state()
        }
        fn is_terminal(&self, state: &u32) -> bool {
            self.game.is_terminal(state)
        }
        fn legal_moves(&self, state: &u32, role: usize, out: &mut Vec<u8>) {
            self.game.legal_moves(state, role, out)
        }
        fn next_state(&self, state: &u32, joint: &[u8], next: &mut u32) {
            self.game.next_state(state, joint, next)
        }
        fn goal(&self, state: &u32, role: usize) -> Option<i32> {
            match self.goals {
                Some([v]) => Some(*v),
                Some(_) => None,
                None => self.game.goal(state, role),
            }
        }
        fn goal_values(&self, state: &u32, role: usize, out: &mut Vec<Option<i32>>) {
            out.clear();
            match self.goals {
                Some(vs) => out.extend(vs.iter().map(|&v| Some(v))),
                None => out.extend(self.goal(state, role).map(Some)),
            }
        }
        fn write_move(&self, role: usize, mv: u8, out: &mut String) {
            self.game.write_move(role, mv, out)
        }
        fn parse_move(&self, role: usize, text: &str) -> Option<u8> {
            self.game.parse_move(role, text)
        }
        fn write_state(&self, state: &u32, out: &mut Vec<String>) {
            self.game.write_state(state, out)
        }
        fn is_random_role(&self, _role: usize) -> bool {
            self.random
        }
        fn percepts(&self, state: &u32, joint: &[u8], _role: usize, out: &mut Vec<String>) {
            if self.sees {
                let odd = (state % 2 == 1) != (self.wrong_at_3 && *state == 3);
                out.push(format!("(moved {})", joint[0]));
                out.push(if odd { "odd" } else { "even" }.to_string());
            }
        }
    }

    #[test]
    fn percepts_and_random_roles_are_compared() {
        let seeing = |sees, wrong_at_3, random| Seeing {
            game: Countdown::new(7),
            sees,
            wrong_at_3,
            random,
            goals: None,
        };
        let good = seeing(true, false, false);
        let record = playout_record(&good, 1, 100);
        assert!(
            record.contains("joint (minus 1)\nsees only 2: (moved 1) odd\n")
                || record.contains("joint (minus 2)\nsees only 2: (moved 2) odd\n"),
            "{record}"
        );
        compare(&good, &good, ["a", "b"], &CompareOptions::default()).unwrap();
        // Percepts missing on one side (a compiled game that ignores `sees`).
        let blind = seeing(false, false, false);
        let m = compare(
            &blind,
            &good,
            ["compiled", "interpreted"],
            &Default::default(),
        )
        .unwrap_err();
        assert_eq!(m.step, Some(0));
        assert_eq!(
            m.kind,
            MismatchKind::Percepts {
                role: "only".into()
            }
        );
        assert_eq!(m.differences()[0], Vec::<&str>::new());
        assert_eq!(m.differences()[1].len(), 2, "{m}");
        assert_eq!(m.differences()[1][1], "odd");
        // A wrong percept somewhere.
        let wrong = seeing(true, true, false);
        let m = compare(
            &wrong,
            &good,
            ["compiled", "interpreted"],
            &Default::default(),
        )
        .unwrap_err();
        assert!(m.to_string().contains("percepts of only differ"), "{m}");
        assert_eq!(m.differences(), [vec!["even"], vec!["odd"]]);
        // A role random on one side only.
        let random = seeing(true, false, true);
        assert!(playout_record(&random, 1, 100).contains("seed 1\nrandom only\nstep 0"));
        let m = compare(&random, &good, ["a", "b"], &Default::default()).unwrap_err();
        assert_eq!(m.kind, MismatchKind::Roles);
        let mut trace = String::new();
        crate::trace::write_trace(
            &random,
            &TraceOptions {
                seed: 1,
                max_steps: 100,
            },
            &mut trace,
        )
        .unwrap();
        assert_eq!(reference_trace(&playout_record(&random, 1, 100)), trace);
        // Without percepts and random roles, a record is the reference trace.
        let g = Countdown::new(5);
        let mut trace = String::new();
        crate::trace::write_trace(
            &g,
            &TraceOptions {
                seed: 3,
                max_steps: 100,
            },
            &mut trace,
        )
        .unwrap();
        assert_eq!(reference_trace(&playout_record(&g, 3, 100)), trace);
        assert!(
            playout_record(&g, 3, 100).ends_with("\ngoal-values only 1: 100\n"),
            "{}",
            playout_record(&g, 3, 100)
        );
    }

    #[test]
    fn several_goal_values_are_told_from_none() {
        let with_goals = |goals| Seeing {
            game: Countdown::new(4),
            sees: false,
            wrong_at_3: false,
            random: false,
            goals,
        };
        let several = with_goals(Some(&[0, 100]));
        let none = with_goals(Some(&[]));
        // Both say no goal value through `goal`; the records tell them apart.
        let m = compare(&several, &none, ["a", "b"], &Default::default()).unwrap_err();
        assert_eq!(m.kind, MismatchKind::Goals);
        assert_eq!(
            m.differences(),
            [vec!["0", "100"], Vec::<&str>::new()],
            "{m}"
        );
        compare(&several, &several, ["a", "b"], &Default::default()).unwrap();
    }

    #[test]
    fn terminal_and_goal_differences_are_classified() {
        assert_eq!(
            classify("terminal 3 goals a=1", "legal a 1: noop"),
            MismatchKind::Terminal
        );
        assert_eq!(
            classify("terminal 3 goals a=1", "terminal 3 goals a=2"),
            MismatchKind::Goals
        );
        let m = compare_records(
            5,
            "roles a\nstep 0\nstate (p)\n",
            "roles a\nstep 0\n",
            ["x", "y"],
        )
        .unwrap_err();
        assert_eq!(m.kind, MismatchKind::Other);
        assert_eq!(m.step, Some(0));
    }
}
