//! `gdlc dump`: prints one stage of the compiler pipeline for a description.

use std::path::PathBuf;
use std::process::ExitCode;

use gdlc::pipeline::{self, Stage};

/// Which stage to print.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// The syntax tree, as KIF.
    Ast,
    /// The relation strata, in evaluation order.
    Strata,
    /// The ground rules.
    Ground,
    /// The optimised propositional IR.
    Ir,
    /// The generated Rust module.
    Rust,
}

/// The arguments of `gdlc dump`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game description (KIF or infix).
    pub file: PathBuf,
    /// The stage to print.
    #[arg(long, value_enum, default_value_t = Emit::Ir)]
    pub emit: Emit,
    /// Print pass times and sizes on standard error.
    #[arg(long)]
    pub stats: bool,
    #[command(flatten)]
    pub codegen: super::CodegenArgs,
}

pub fn run(args: Args) -> ExitCode {
    let loaded = match super::Loaded::read(&args.file) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let options = super::options_for(&args.file, &args.codegen);
    let stop = match args.emit {
        Emit::Ast => Stage::Ast,
        Emit::Strata => Stage::Strata,
        Emit::Ground => Stage::Ground,
        Emit::Ir => Stage::Ir,
        Emit::Rust => Stage::Rust,
    };
    let a = match pipeline::run(loaded.source(), &options, stop) {
        Ok(a) => a,
        Err(errors) => return loaded.report(&errors),
    };
    let mut out = String::new();
    match args.emit {
        Emit::Ast => out = gdlc::print::pretty_kif(&a.program),
        Emit::Strata => match &a.strata {
            Some(s) => {
                for (i, c) in s.components.iter().enumerate() {
                    let names: Vec<&str> = c
                        .relations
                        .iter()
                        .map(|&r| a.program.symbols.name(r))
                        .collect();
                    let rec = if c.recursive { " recursive" } else { "" };
                    out.push_str(&format!(
                        "component {i} stratum {}{rec}: {}\n",
                        c.stratum,
                        names.join(" ")
                    ));
                }
            }
            None => out.push_str("; not stratified by relation (only by rule instance)\n"),
        },
        Emit::Ground => {
            if let Some(g) = &a.ground {
                out = ground_text(g);
            }
        }
        Emit::Ir => {
            if let Some(ir) = &a.ir {
                out = ir.to_string();
            }
        }
        Emit::Rust => out = a.rust.unwrap_or_default(),
    }
    if let Err(code) = super::print_out(&out) {
        return code;
    }
    if args.stats {
        for (pass, t) in &a.timings {
            eprintln!("{pass}: {:.3}s", t.as_secs_f64());
        }
        if let Some(g) = &a.ground {
            eprintln!("ground: {:?}", g.stats);
        }
        if let Some(s) = a.ir_lowered {
            eprintln!("ir lowered: {s:?}");
        }
        if let Some(ir) = &a.ir {
            eprintln!("ir optimised: {:?}", ir.stats());
        }
    }
    ExitCode::SUCCESS
}

/// The ground rules as KIF text.
fn ground_text(g: &gdlc::ground::GroundProgram) -> String {
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
