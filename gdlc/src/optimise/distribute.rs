//! A disjunction of conjunctions that each read a prop with a disjunct of one literal `u`
//! (the propnet backend's network only): `(u | r_1) & c_1 | .. | (u | r_n) & c_n` as
//! `u & (c_1 | .. | c_n) | r_1 & c_1 | .. | r_n & c_n`, when `n` is at least [`MIN_GROUP`],
//! so that a change of `u` reaches one gate of the disjunction, not the `n` props: chess_200's
//! `(hasAnyLegalMove ?p)`, the moves by target square `(not (inCheck ?p) | way out) & moves`.

use rustc_hash::FxHashMap as HashMap;

use super::absorb::unit;
use super::factor::insert;
use crate::ir::{Input, Ir, Lit, Prop};

/// The fewest conjunctions of a disjunction that read props with the same one-literal
/// disjunct for them to be rewritten.
const MIN_GROUP: usize = 8;

/// Rewrites every prop outside recursive groups as the module documentation says.
/// Returns whether any prop changed.
#[allow(clippy::needless_range_loop)]
pub fn distribute_units(ir: &mut Ir) -> bool {
    let n = ir.props.len();
    let group_of = ir.group_of();
    // Per prop: its one disjunct of one literal, if it has exactly one and other disjuncts.
    let unit: Vec<Option<Lit>> = (0..n)
        .map(|q| {
            let d = &ir.props[q].disjuncts;
            if group_of[q].is_some() || d.len() < 2 {
                return None;
            }
            let mut units = d.iter().filter_map(|c| unit(c));
            match (units.next(), units.next()) {
                (Some(u), None) => Some(u),
                _ => None,
            }
        })
        .collect();
    let mut added: Vec<(u32, Prop)> = Vec::new();
    let mut rest_of: HashMap<u32, Vec<Lit>> = HashMap::default();
    for h in 0..n {
        if group_of[h].is_some() || ir.props[h].disjuncts.len() < MIN_GROUP {
            continue;
        }
        let mut by_unit: HashMap<Lit, Vec<(usize, u32)>> = HashMap::default();
        for (i, c) in ir.props[h].disjuncts.iter().enumerate() {
            let mut qs = c.iter().filter_map(|l| match l.input {
                Input::Prop(q) if !l.negated && (q as usize) < n => {
                    unit[q as usize].map(|u| (q, u))
                }
                _ => None,
            });
            if let (Some((q, u)), None, true) = (qs.next(), qs.next(), c.len() >= 2) {
                by_unit.entry(u).or_default().push((i, q));
            }
        }
        let mut groups: Vec<(Lit, Vec<(usize, u32)>)> = by_unit
            .into_iter()
            .filter(|(_, m)| m.len() >= MIN_GROUP)
            .collect();
        if groups.is_empty() {
            continue;
        }
        groups.sort_unstable_by_key(|g| g.0);
        let mut disjuncts = std::mem::take(&mut ir.props[h].disjuncts);
        for (k, (u, members)) in groups.into_iter().enumerate() {
            let mut rests: Vec<Vec<Lit>> = Vec::with_capacity(members.len());
            for (i, q) in members {
                let q_lit = Lit::pos(Input::Prop(q));
                let rest: Vec<Lit> = disjuncts[i]
                    .iter()
                    .copied()
                    .filter(|&l| l != q_lit)
                    .collect();
                // What `q` holds by, but for `u`: its one other conjunction, or a new prop.
                let r = rest_of.entry(q).or_insert_with(|| {
                    let others: Vec<Vec<Lit>> = ir.props[q as usize]
                        .disjuncts
                        .iter()
                        .filter(|c| c[..] != [u])
                        .cloned()
                        .collect();
                    match &others[..] {
                        [c] => c.clone(),
                        _ => {
                            let text = format!("{} (but for {u})", ir.props[q as usize].text);
                            added.push((
                                q,
                                Prop {
                                    text,
                                    disjuncts: others,
                                    origins: ir.props[q as usize].origins.clone(),
                                },
                            ));
                            vec![Lit::pos(Input::Prop((n + added.len() - 1) as u32))]
                        }
                    }
                });
                let mut c = rest.clone();
                c.extend(r.iter().copied());
                disjuncts[i] = c;
                rests.push(rest);
            }
            let text = format!("{} (with {u}, group {})", ir.props[h].text, k + 1);
            added.push((
                h as u32,
                Prop {
                    text,
                    disjuncts: rests,
                    origins: ir.props[h].origins.clone(),
                },
            ));
            disjuncts.push(vec![u, Lit::pos(Input::Prop((n + added.len() - 1) as u32))]);
        }
        ir.props[h].disjuncts = disjuncts;
    }
    let changed = !added.is_empty();
    if changed {
        insert(ir, added);
    }
    changed
}
