//! A [`Report`] as text for people ([`text`]) and as JSON for tools ([`json`]).

use std::fmt::Write as _;

use super::{Finding, JointText, Mode, Report, Severity, Shown};
use gdl_runtime::Declared;

/// The report as text: a summary, the roles, the value, each finding with its moves (each
/// joint move a line of `(does ROLE MOVE)`), and the verdict.
pub fn text(report: &Report, game: &str) -> String {
    let mut s = String::new();
    let rate = report.states_per_second();
    match report.mode {
        Mode::Exhaustive => {
            let _ = writeln!(
                s,
                "{game}: exhaustive: {} states ({} terminal), depth {}, in {:.2} s ({:.0} \
                 states/s)",
                report.states, report.terminal_states, report.depth, report.seconds, rate
            );
        }
        Mode::Sampled => {
            let stop = report
                .exhaustive_stop
                .as_deref()
                .unwrap_or("an engine fault");
            let _ = writeln!(
                s,
                "{game}: sampled: breadth-first search stopped by {stop} (depth {}, {:.2} s), \
                 then {} random playouts ({} states, the longest {} steps), in {:.2} s ({:.0} \
                 states/s)",
                report.depth,
                report.explore_seconds,
                report.playouts,
                report.sampled_states,
                report.longest_playout,
                report.seconds,
                rate
            );
        }
    }
    for role in &report.roles {
        let weak = match role.weakly_winnable {
            Some(true) => "weakly winnable",
            Some(false) => "not weakly winnable",
            None => "no win seen",
        };
        let strong = match role.strongly_winnable {
            Some(true) => ", can force a win",
            Some(false) => ", cannot force a win",
            None => "",
        };
        let _ = writeln!(s, "  role {}: {weak}{strong}", role.name);
    }
    match &report.value {
        Some(v) => {
            let parts: Vec<String> = (report.roles.iter().zip(v))
                .map(|(r, v)| format!("{} {v}", r.name))
                .collect();
            let _ = writeln!(s, "  value of the initial state: {}", parts.join(", "));
        }
        None if report.mode == Mode::Exhaustive => {
            let _ = writeln!(s, "  no game value: {}", report.value_note);
        }
        None => {}
    }
    let d = report.declarations;
    if (d.base, d.input) != (Declared::Absent, Declared::Absent) {
        let said = |d: Declared| match d {
            Declared::Absent => "not given",
            Declared::Given => "checked",
            Declared::Unevaluated => "given but not evaluated, unchecked",
        };
        let (base, input) = (said(d.base), said(d.input));
        let _ = writeln!(s, "  base: {base}; input: {input}");
    }
    if let Some(f) = &report.fault {
        let _ = writeln!(s, "  the engine stopped: {f}");
    }
    for f in &report.findings {
        finding_text(&mut s, report, f);
    }
    let (e, w) = (report.errors(), report.warnings());
    let verdict = if e > 0 {
        format!("not well-formed: {e} error(s), {w} warning(s)")
    } else if report.well_formed() {
        format!("well-formed ({w} warning(s))")
    } else {
        format!("undecided: no error found, but not every state was seen ({w} warning(s))")
    };
    let _ = writeln!(s, "{game}: {verdict}");
    s
}

fn finding_text(s: &mut String, report: &Report, f: &Finding) {
    let severity = match f.kind.severity() {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let who = f
        .role
        .and_then(|r| report.roles.get(r))
        .map_or(String::new(), |r| format!("role {}: ", r.name));
    let times = if f.count > 1 {
        format!(" ({} times)", f.count)
    } else {
        String::new()
    };
    let _ = writeln!(s, "{severity}[{}]: {who}{}{times}", f.kind.code(), f.detail);
    let n = f.path.len();
    let heading = match f.shown() {
        Shown::InitialState => "in the initial state (no move leads to it)".to_string(),
        Shown::State => format!("after {n} joint move(s):"),
        Shown::Move => format!("along the last of {n} joint move(s):"),
        Shown::Cycle if n == 0 => "the initial state lies on a cycle, back to it by:".to_string(),
        Shown::Cycle => format!("after {n} joint move(s), a state on a cycle:"),
        Shown::WholeGraph => "of the whole reachable graph: no one state shows it".to_string(),
        Shown::LongPlayout => "in a random playout, whose moves are not kept".to_string(),
    };
    let _ = writeln!(s, "  {heading}");
    moves_text(s, report, &f.path, 1);
    if !f.cycle.is_empty() {
        if n > 0 {
            let _ = writeln!(s, "  then back to the same state by:");
        }
        moves_text(s, report, &f.cycle, n + 1);
    }
}

fn moves_text(s: &mut String, report: &Report, moves: &[JointText], first: usize) {
    for (i, joint) in moves.iter().enumerate() {
        let does: Vec<String> = (report.roles.iter().zip(joint))
            .map(|(r, m)| format!("(does {} {m})", r.name))
            .collect();
        let _ = writeln!(s, "    {}. {}", first + i, does.join(" "));
    }
}

/// The report as one JSON object (keys as in [`Report`], findings with `code`, `severity`,
/// `role`, `detail`, `count`, `shown` ([`Shown::code`]: what the moves show), `path` and
/// `cycle`, each joint move an array of move texts in
/// role order; `base` and `input`: `absent`, `checked` or `unevaluated`), with `game`, `errors`, `warnings`, `well_formed` and `exit_status`.
pub fn json(report: &Report, game: &str) -> String {
    let mut s = String::from("{");
    let _ = write!(s, "\"game\":{}", quoted(game));
    let mode = match report.mode {
        Mode::Exhaustive => "exhaustive",
        Mode::Sampled => "sampled",
    };
    let _ = write!(s, ",\"mode\":\"{mode}\"");
    for (key, n) in [
        ("states", report.states),
        ("terminal_states", report.terminal_states),
        ("depth", report.depth),
        ("playouts", report.playouts),
        ("sampled_states", report.sampled_states),
        ("longest_playout", report.longest_playout),
    ] {
        let _ = write!(s, ",\"{key}\":{n}");
    }
    let _ = write!(
        s,
        ",\"seconds\":{:.3},\"explore_seconds\":{:.3},\"states_per_second\":{:.0}",
        report.seconds,
        report.explore_seconds,
        report.states_per_second()
    );
    let _ = write!(
        s,
        ",\"exhaustive_stop\":{}",
        optional(report.exhaustive_stop.as_deref())
    );
    let roles: Vec<String> = report
        .roles
        .iter()
        .map(|r| {
            let b = |v: Option<bool>| v.map_or("null".to_string(), |v| v.to_string());
            format!(
                "{{\"name\":{},\"weakly_winnable\":{},\"strongly_winnable\":{}}}",
                quoted(&r.name),
                b(r.weakly_winnable),
                b(r.strongly_winnable)
            )
        })
        .collect();
    let _ = write!(s, ",\"roles\":[{}]", roles.join(","));
    let value = report.value.as_ref().map_or("null".to_string(), |v| {
        let v: Vec<String> = v.iter().map(i32::to_string).collect();
        format!("[{}]", v.join(","))
    });
    let _ = write!(
        s,
        ",\"value\":{value},\"value_note\":{}",
        quoted(&report.value_note)
    );
    let _ = write!(s, ",\"fault\":{}", optional(report.fault.as_deref()));
    let name = |d: Declared| match d {
        Declared::Absent => "absent",
        Declared::Given => "checked",
        Declared::Unevaluated => "unevaluated",
    };
    let d = report.declarations;
    let _ = write!(
        s,
        ",\"base\":\"{}\",\"input\":\"{}\"",
        name(d.base),
        name(d.input)
    );
    let findings: Vec<String> = report
        .findings
        .iter()
        .map(|f| finding_json(report, f))
        .collect();
    let _ = write!(s, ",\"findings\":[{}]", findings.join(","));
    let _ = write!(
        s,
        ",\"errors\":{},\"warnings\":{},\"well_formed\":{},\"exit_status\":{}}}",
        report.errors(),
        report.warnings(),
        report.well_formed(),
        report.exit_status()
    );
    s
}

fn finding_json(report: &Report, f: &Finding) -> String {
    let severity = match f.kind.severity() {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let role = f.role.and_then(|r| report.roles.get(r)).map(|r| &*r.name);
    format!(
        "{{\"code\":\"{}\",\"severity\":\"{severity}\",\"role\":{},\"detail\":{},\"count\":{},\
         \"shown\":\"{}\",\"path\":{},\"cycle\":{}}}",
        f.kind.code(),
        optional(role),
        quoted(&f.detail),
        f.count,
        f.shown().code(),
        moves_json(&f.path),
        moves_json(&f.cycle)
    )
}

fn moves_json(moves: &[JointText]) -> String {
    let joints: Vec<String> = moves
        .iter()
        .map(|j| {
            let m: Vec<String> = j.iter().map(|m| quoted(m)).collect();
            format!("[{}]", m.join(","))
        })
        .collect();
    format!("[{}]", joints.join(","))
}

fn optional(s: Option<&str>) -> String {
    s.map_or("null".to_string(), quoted)
}

/// A JSON string.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
