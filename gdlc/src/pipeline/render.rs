//! The text of each pass's output, as `gdlc dump --emit OUTPUT` prints it (and the snapshot
//! tests of `gdlc/tests/stages.rs` compare it).

use super::{Artifacts, Pass};
use crate::ground::GroundProgram;
use crate::normalize::NProgram;

impl Artifacts {
    /// The text of what `pass` made, when [`super::run`] stopped after it: the syntax tree as
    /// KIF, the relation strata, the normalised or projected rules, the ground rules, the IR
    /// (as lowered or optimised) or the Rust module. Empty when the run stopped before `pass`,
    /// or when a later pass consumed its output (the projected rules are freed once grounded,
    /// the lowered IR is optimised in place, the ground rules are freed once lowered).
    pub fn render(&self, pass: Pass) -> String {
        match pass {
            Pass::Parse => crate::print::pretty_kif(&self.program),
            Pass::Check => self.strata_text(),
            Pass::Normalise => self.normalized.as_ref().map(rules_text).unwrap_or_default(),
            Pass::Project => self.projected.as_ref().map(rules_text).unwrap_or_default(),
            Pass::Ground => self.ground.as_ref().map(ground_text).unwrap_or_default(),
            Pass::Lower | Pass::Optimise if self.last == Some(pass) => self
                .ir
                .as_ref()
                .map(|ir| ir.to_string())
                .unwrap_or_default(),
            Pass::Lower | Pass::Optimise => String::new(),
            Pass::Generate => self.rust.clone().unwrap_or_default(),
        }
    }

    /// The relation strata in evaluation order, one component a line.
    fn strata_text(&self) -> String {
        let Some(s) = &self.strata else {
            return "; not stratified by relation (only by rule instance)\n".into();
        };
        let mut out = String::new();
        for (i, c) in s.components.iter().enumerate() {
            let names: Vec<&str> = c
                .relations
                .iter()
                .map(|&r| self.program.symbols.name(r))
                .collect();
            let rec = if c.recursive { " recursive" } else { "" };
            out.push_str(&format!(
                "component {i} stratum {}{rec}: {}\n",
                c.stratum,
                names.join(" ")
            ));
        }
        out
    }
}

/// The ground rules as KIF text.
fn ground_text(g: &GroundProgram) -> String {
    let mut out = format!(
        "; {} static atoms, {} dynamic atoms, {} relaxed rounds, {} ground rules\n",
        g.stats.static_atoms, g.stats.dynamic_atoms, g.stats.rounds, g.stats.rules
    );
    let roles: Vec<String> = g.roles.iter().map(|&r| g.text(r)).collect();
    out.push_str(&format!("; roles: {}\n", roles.join(" ")));
    for &i in &g.init {
        out.push_str(&format!("(init {})\n", g.text(i)));
    }
    for r in &g.rules {
        if r.pos.is_empty() && r.neg.is_empty() {
            out.push_str(&format!("{}\n", g.text(r.head)));
            continue;
        }
        out.push_str(&format!("(<= {}", g.text(r.head)));
        for &p in &r.pos {
            out.push_str(&format!(" {}", g.text(p)));
        }
        for &n in &r.neg {
            out.push_str(&format!(" (not {})", g.text(n)));
        }
        out.push_str(")\n");
    }
    out
}

/// Normalised rules as KIF text, one a line (variables numbered: `?0`).
fn rules_text(p: &NProgram) -> String {
    let mut out = format!("; {} rules\n", p.rules.len());
    for r in &p.rules {
        let line = if r.body.is_empty() {
            crate::normalize::text::atom(&r.head, p)
        } else {
            crate::normalize::text::rule(r, p)
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}
