//! The Markdown of `cargo xtask strength`: the "Strength" section of BENCHMARKS.md, and how it
//! replaces the section of an existing file (below the line after which `cargo xtask bench`
//! keeps what other commands measured).

use std::fmt::Write as _;

use super::stats::{Mean, Score, elo_text};
use super::{Args, DEFAULT_MATCHES, GameResult, Outcome, Variant, overall};
use crate::bench::cpu_model;

/// The section's heading.
const HEADING: &str = "## Strength";

/// What the section says about the run besides the games.
pub struct Run<'a> {
    pub variants: &'a [Variant; 2],
    pub common: &'a [String],
    pub args: &'a Args,
    /// The commit measured, read when the run began.
    pub commit: String,
    pub load_before: Option<String>,
    pub load_after: Option<String>,
    pub build_seconds: f64,
    pub play_seconds: f64,
    pub total_seconds: f64,
}

/// A variant's flags as they are passed, or `no extra flags`.
fn flags(f: &[String]) -> String {
    if f.is_empty() {
        "no extra flags".into()
    } else {
        format!("`{}`", f.join(" "))
    }
}

/// `1 match`, `4 matches`.
fn matches(n: usize) -> String {
    match n {
        1 => "1 match".into(),
        n => format!("{n} matches"),
    }
}

/// The command that reproduces the run.
fn command(run: &Run) -> String {
    let mut c = String::from("cargo xtask strength");
    for v in run.variants {
        let _ = write!(c, " --variant '{}={}'", v.name, v.flags.join(" "));
    }
    if !run.common.is_empty() {
        let _ = write!(c, " --common='{}'", run.common.join(" "));
    }
    if let Some(g) = &run.args.games {
        let _ = write!(c, " --games {g}");
    }
    let _ = write!(
        c,
        " --matches {} --startclock {} --playclock {} --out BENCHMARKS.md",
        run.args.matches, run.args.startclock, run.args.playclock
    );
    c
}

/// A score with its interval and the Elo difference: the cells `score | interval | Elo |
/// Elo interval`.
fn score_cells(s: &Score) -> String {
    let (e, lo, hi) = s.elo();
    format!(
        "{:.3} | {:.3} to {:.3} | {} | {} to {}",
        s.score,
        s.low,
        s.high,
        elo_text(e),
        elo_text(lo),
        elo_text(hi)
    )
}

fn mean_text(m: &Option<Mean>) -> String {
    m.map_or(String::new(), |m| format!("{:.1}", m.mean))
}

/// One line per game for the progress output.
pub fn summary_line(r: &GameResult, v: &[Variant; 2]) -> String {
    let what = match &r.outcome {
        Err(e) => format!("failed: {e}"),
        Ok(Outcome::Versus { total, scores, .. }) => match Score::of(scores) {
            Some(s) => format!(
                "{} vs {}: {}-{}-{}, score {:.3}, Elo {}",
                v[0].name,
                v[1].name,
                total.wins,
                total.draws,
                total.losses,
                s.score,
                elo_text(s.elo().0)
            ),
            None => "no completed match".into(),
        },
        Ok(Outcome::Solo { goals, .. }) => format!(
            "mean score {} {}, {} {}",
            v[0].name,
            mean_text(&goals[0]),
            v[1].name,
            mean_text(&goals[1])
        ),
    };
    format!("{} ({:.0} s): {what}", r.name, r.seconds)
}

pub fn section(results: &[GameResult], run: &Run) -> String {
    let [a, b] = run.variants;
    let mut s = format!("{HEADING}\n\n");
    let _ = writeln!(
        s,
        "Two player variants against each other at equal time per move, with real HTTP \
         players (`gdlc play GAME --threads 1 FLAGS`, one process per seat) and `gdlc \
         tournament` as the manager. Regenerate this section with:\n\n\
         ```sh\n{}\n```\n",
        command(run)
    );
    let _ = writeln!(
        s,
        "Variants: A = `{}`: {}; B = `{}`: {}; both: {}. Clocks: start {} s, play \
         {} s per move (a player answers at the clock less the margin it keeps, `gdlc play \
         --margin`); {} per game (per variant in a puzzle). Two roles: the seats \
         swap every match. Three roles or more: the seats alternate A B A, then B A B for the \
         second half, and every seat of A is counted against every seat of B (W-D-L are \
         those pairs). Score = (W + D/2) / matches, with its 95% Wilson interval (draws \
         counted as half a win: on the wide side); Elo = -400 log10(1/score - 1), its interval \
         the score's mapped through it. Errors: moves charged to the player (TO: no answer in \
         time, CE: no connection, IL: illegal move, replaced by a random legal one).\n",
        a.name,
        flags(&a.flags),
        b.name,
        flags(&b.flags),
        flags(run.common),
        run.args.startclock,
        run.args.playclock,
        matches(run.args.matches)
    );
    if run.args.matches < DEFAULT_MATCHES {
        let _ = writeln!(
            s,
            "**A small run** ({} per game, against {} by default): the intervals \
             are wide.\n",
            matches(run.args.matches),
            DEFAULT_MATCHES
        );
    }
    let placing = placing(results);
    let _ = writeln!(
        s,
        "Machine: {} cores ({}){placing}; load average before {}, after {} (the machine is \
         shared: the players compete with other work for their cores, alike for both \
         variants). Measured on {}. The run took {:.0} s: {:.0} s starting every game's players \
         once (building those not in the build cache), {:.0} s of matches.\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model(),
        run.load_before.as_deref().unwrap_or("?"),
        run.load_after.as_deref().unwrap_or("?"),
        run.commit,
        run.total_seconds,
        run.build_seconds,
        run.play_seconds
    );
    versus_table(&mut s, results, run.variants);
    seats(&mut s, results, &run.variants[0].name);
    solo_table(&mut s, results, run.variants);
    s
}

/// The repository's commit (`git describe --always --dirty`), or `an unknown commit`.
pub fn commit() -> String {
    std::process::Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .current_dir(crate::common::repo_root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|c| !c.is_empty())
        .map_or("an unknown commit".into(), |c| format!("commit {c}"))
}

/// How the players were placed: `; HOW` when every game's were alike, else `; GAMES: HOW`
/// for each way.
fn placing(results: &[GameResult]) -> String {
    let mut ways: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in results {
        match ways.iter_mut().find(|(p, _)| *p == r.pinning) {
            Some((_, games)) => games.push(&r.name),
            None => ways.push((&r.pinning, vec![&r.name])),
        }
    }
    match ways.as_slice() {
        [] => String::new(),
        [(how, _)] => format!("; {how}"),
        _ => ways
            .iter()
            .map(|(how, games)| format!("; {}: {how}", games.join(", ")))
            .collect(),
    }
}

fn versus_table(s: &mut String, results: &[GameResult], v: &[Variant; 2]) {
    let (a, b) = (&v[0].name, &v[1].name);
    let _ = writeln!(
        s,
        "| game | kind | roles | matches | W-D-L {a} vs {b} | score {a} | 95% interval | Elo \
         {a} - {b} | Elo interval | mean goal {a} | mean goal {b} | errors {a} | errors {b} | \
         s |\n|---|---|---:|---:|---|---:|---|---:|---|---:|---:|---|---|---:|"
    );
    for r in results {
        let head = format!("| {} | {} | {} |", r.name, r.kind, r.roles);
        match &r.outcome {
            Err(e) => {
                if r.roles > 1 {
                    let _ = writeln!(
                        s,
                        "{head} | failed: {} | | | | | | | | | {:.0} |",
                        e.replace('|', "/"),
                        r.seconds
                    );
                }
            }
            Ok(Outcome::Versus {
                total,
                scores,
                goals,
                errors,
                incomplete,
                ..
            }) => {
                let matches = match incomplete {
                    0 => scores.len().to_string(),
                    n => format!("{} (+{n} aborted)", scores.len()),
                };
                let cells = Score::of(scores).map_or(" | | | ".into(), |sc| score_cells(&sc));
                let _ = writeln!(
                    s,
                    "{head} {matches} | {}-{}-{} | {cells} | {} | {} | {} | {} | {:.0} |",
                    total.wins,
                    total.draws,
                    total.losses,
                    mean_text(&goals[0]),
                    mean_text(&goals[1]),
                    errors[0].text(),
                    errors[1].text(),
                    r.seconds
                );
            }
            Ok(Outcome::Solo { .. }) => {}
        }
    }
    if let Some((total, score)) = overall(results) {
        let _ = writeln!(
            s,
            "| **all** | | | {} | {}-{}-{} | {} | | | | | |",
            score.matches,
            total.wins,
            total.draws,
            total.losses,
            score_cells(&score)
        );
    }
}

/// A's W-D-L in the first role and in the second of each two-role game: where the seat
/// decides the result whoever plays it, the score says little of the variants.
fn seats(s: &mut String, results: &[GameResult], a: &str) {
    let games: Vec<String> = results
        .iter()
        .filter_map(|r| match &r.outcome {
            Ok(Outcome::Versus {
                by_seat: Some([first, second]),
                ..
            }) => Some(format!(
                "{} {}-{}-{} / {}-{}-{}",
                r.name,
                first.wins,
                first.draws,
                first.losses,
                second.wins,
                second.draws,
                second.losses
            )),
            _ => None,
        })
        .collect();
    if !games.is_empty() {
        let _ = writeln!(
            s,
            "\nBy seat, {a}'s W-D-L in the first role / in the second: {}.",
            games.join("; ")
        );
    }
}

fn solo_table(s: &mut String, results: &[GameResult], v: &[Variant; 2]) {
    let solo: Vec<&GameResult> = results.iter().filter(|r| r.roles == 1).collect();
    if solo.is_empty() {
        return;
    }
    let (a, b) = (&v[0].name, &v[1].name);
    let _ = writeln!(
        s,
        "\nSingle-player puzzles: the score reached (mean of the matches, with its 95% \
         interval), each variant playing alone.\n\n\
         | game | matches per variant | mean score {a} | mean score {b} | {a} - {b} | errors \
         {a} | errors {b} | s |\n|---|---:|---|---|---|---|---|---:|"
    );
    let pm = |m: &Option<Mean>| {
        m.map_or(String::new(), |m| {
            format!("{:.1} ± {:.1}", m.mean, m.half_width)
        })
    };
    for r in solo {
        match &r.outcome {
            Err(e) => {
                let _ = writeln!(
                    s,
                    "| {} | failed: {} | | | | | | {:.0} |",
                    r.name,
                    e.replace('|', "/"),
                    r.seconds
                );
            }
            Ok(Outcome::Solo {
                goals,
                errors,
                incomplete,
            }) => {
                let n = goals[0].map_or(0, |g| g.n).min(goals[1].map_or(0, |g| g.n));
                let matches = match incomplete {
                    0 => n.to_string(),
                    k => format!("{n} (+{k} aborted)"),
                };
                let diff = match (&goals[0], &goals[1]) {
                    (Some(x), Some(y)) => {
                        let (d, hw) = x.minus(y);
                        format!("{d:+.1} ± {hw:.1}")
                    }
                    _ => String::new(),
                };
                let _ = writeln!(
                    s,
                    "| {} | {matches} | {} | {} | {diff} | {} | {} | {:.0} |",
                    r.name,
                    pm(&goals[0]),
                    pm(&goals[1]),
                    errors[0].text(),
                    errors[1].text(),
                    r.seconds
                );
            }
            Ok(Outcome::Versus { .. }) => {}
        }
    }
}

/// `old` with its Strength section replaced by `section` (from its heading to the next `## `
/// heading or the end); appended at the end when there is none, after `cargo xtask bench`'s
/// marker (added when missing) so that a regenerated benchmark keeps it.
pub fn replace_section(old: &str, section: &str) -> String {
    let section = section.trim_end();
    let start = old
        .match_indices(HEADING)
        .find(|(i, _)| {
            (*i == 0 || old[..*i].ends_with('\n'))
                && old[i + HEADING.len()..].starts_with(['\n', '\r'])
        })
        .map(|(i, _)| i);
    match start {
        Some(i) => {
            let rest = &old[i + HEADING.len()..];
            let end = rest
                .find("\n## ")
                .map_or(old.len(), |j| i + HEADING.len() + j + 1);
            let mut out = old[..i].to_string();
            out.push_str(section);
            out.push_str("\n\n");
            out.push_str(&old[end..]);
            format!("{}\n", out.trim_end())
        }
        None => {
            let mut out = old.trim_end().to_string();
            if !out.contains(crate::bench::KEPT_MARKER) {
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                out.push_str(crate::bench::KEPT_MARKER);
            }
            out.push_str("\n\n");
            out.push_str(section);
            out.push('\n');
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{records::Errors, stats::Pairwise};
    use super::*;

    #[test]
    fn the_placing_names_the_games_only_when_they_differ() {
        let r = |name: &str, pinning: &str| GameResult {
            name: name.into(),
            kind: String::new(),
            roles: 2,
            seconds: 0.0,
            pinning: pinning.into(),
            outcome: Err(String::new()),
        };
        assert_eq!(placing(&[r("a", "own"), r("b", "own")]), "; own");
        assert_eq!(
            placing(&[r("a", "own"), r("b", "shared"), r("c", "own")]),
            "; a, c: own; b: shared"
        );
        assert_eq!(placing(&[]), "");
    }

    #[test]
    fn two_role_games_are_told_by_seat() {
        let p = |wins, draws, losses| Pairwise {
            wins,
            draws,
            losses,
        };
        let r = |name: &str, roles, by_seat| GameResult {
            name: name.into(),
            kind: String::new(),
            roles,
            seconds: 0.0,
            pinning: String::new(),
            outcome: Ok(Outcome::Versus {
                total: Pairwise::default(),
                scores: Vec::new(),
                goals: [None, None],
                errors: [Errors::default(); 2],
                incomplete: 0,
                by_seat,
            }),
        };
        let mut s = String::new();
        seats(
            &mut s,
            &[
                r("hex", 2, Some([p(10, 0, 0), p(0, 1, 9)])),
                r("3p", 3, None),
                r("c4", 2, Some([p(3, 1, 1), p(2, 0, 3)])),
            ],
            "new",
        );
        assert_eq!(
            s,
            "\nBy seat, new's W-D-L in the first role / in the second: hex 10-0-0 / 0-1-9; \
             c4 3-1-1 / 2-0-3.\n"
        );
        let mut none = String::new();
        seats(&mut none, &[r("3p", 3, None)], "new");
        assert_eq!(none, "", "no two-role game, no line");
    }

    #[test]
    fn the_section_is_replaced_in_place_or_appended() {
        let marker = crate::bench::KEPT_MARKER;
        let old = format!("# B\n\ntext\n\n{marker}\n\n## Players\n\np\n");
        let once = replace_section(&old, "## Strength\n\nfirst\n");
        assert_eq!(
            once,
            format!("# B\n\ntext\n\n{marker}\n\n## Players\n\np\n\n## Strength\n\nfirst\n")
        );
        let twice = replace_section(&once, "## Strength\n\nsecond\n");
        assert_eq!(twice, once.replace("first", "second"));
        // A section in the middle keeps what follows it.
        let middle = format!("{marker}\n\n## Strength\n\nold\n\n## Players\n\np\n");
        assert_eq!(
            replace_section(&middle, "## Strength\n\nnew"),
            format!("{marker}\n\n## Strength\n\nnew\n\n## Players\n\np\n")
        );
        // `## Strengths` is another heading.
        let other = format!("{marker}\n\n## Strengths\n\nx\n");
        assert!(replace_section(&other, "## Strength\n\ny").contains("## Strengths\n\nx"));
        assert_eq!(
            replace_section("", "## Strength\n\ny"),
            format!("{marker}\n\n## Strength\n\ny\n")
        );
    }
}
