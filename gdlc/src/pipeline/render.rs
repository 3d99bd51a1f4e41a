//! The text of each stage of the pipeline, as `gdlc dump --emit STAGE` prints it (and the
//! snapshot tests of `gdlc/tests/stages.rs` compare it).

use super::{Artifacts, Stage};
use crate::ground::GroundProgram;

impl Artifacts {
    /// The text of `stage`: the syntax tree as KIF, the relation strata, the ground rules, the
    /// optimised IR or the Rust module. Empty when [`super::run`] stopped before `stage`.
    pub fn render(&self, stage: Stage) -> String {
        match stage {
            Stage::Ast => crate::print::pretty_kif(&self.program),
            Stage::Strata => self.strata_text(),
            Stage::Ground => self.ground.as_ref().map(ground_text).unwrap_or_default(),
            Stage::Ir => self
                .ir
                .as_ref()
                .map(|ir| ir.to_string())
                .unwrap_or_default(),
            Stage::Rust => self.rust.clone().unwrap_or_default(),
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
