//! Conjunctions shared between a prop of one conjunction and the disjuncts of others (the
//! propnet backend's network only).
//!
//! A prop that is one conjunction `D` and a disjunct `C` of another prop, `C` a part of `D`,
//! are two gates of the network that read the literals of `C` each: skirmish's legal move
//! `(control) & (occupied by the mover x1 y1) & (valid move x1 y1 x2 y2) & !(occupied by the
//! mover x2 y2)` and the disjunct `(occupied x1 y1) & (valid move ..)` of `(hasLegalMove ..)`,
//! which the terminal test reads. Here `C` becomes a prop `q` of its own, the disjunct reads
//! `q` and `D` becomes `(D - C) & q`: a change of a literal of `C` visits one gate instead of
//! two, and `D` sees `q` change only when the whole of `C` does. Every prop keeps its value.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::factor::insert;
use crate::ir::{Input, Ir, Lit, Prop};

/// The largest conjunction whose parts are looked up (its parts are `2^len` sets).
const MAX_LEN: usize = 8;

/// Rewrites the IR as the module documentation says.
pub fn share_conjunctions(ir: &mut Ir) {
    let n = ir.props.len();
    let group_of = ir.group_of();
    let outside = |p: usize| group_of[p].is_none();
    // The disjuncts of two or more literals of props of several disjuncts (each a gate).
    // Sized first: growing hashed every disjunct in the set again (and read its literals
    // from memory), a third of the pass on amazonsTorus.
    let wanted = |p: usize, prop: &Prop| outside(p) && prop.disjuncts.len() >= 2;
    let count = (ir.props.iter().enumerate())
        .filter(|&(p, prop)| wanted(p, prop))
        .map(|(_, prop)| prop.disjuncts.iter().filter(|c| c.len() >= 2).count())
        .sum();
    let mut disjuncts: HashSet<Vec<Lit>> =
        HashSet::with_capacity_and_hasher(count, Default::default());
    // The literals those disjuncts read: a part holds no other.
    let mut read: HashSet<Lit> = HashSet::default();
    for (p, prop) in ir.props.iter().enumerate() {
        if !wanted(p, prop) {
            continue;
        }
        for c in &prop.disjuncts {
            if c.len() >= 2 {
                read.extend(c.iter().copied());
                disjuncts.insert(sorted(c));
            }
        }
    }
    if disjuncts.is_empty() {
        return;
    }
    // Per shared part, its new prop (numbered from `n`); and per prop of one conjunction, the
    // largest part found.
    let mut parts: HashMap<Vec<Lit>, u32> = HashMap::default();
    let mut added: Vec<(u32, Prop)> = Vec::new();
    for p in 0..n {
        if !outside(p) {
            continue;
        }
        let [d] = &ir.props[p].disjuncts[..] else {
            continue;
        };
        let Some(part) = largest_part(d, &disjuncts, &read) else {
            continue;
        };
        let q = *parts.entry(part.clone()).or_insert_with(|| {
            added.push((
                p as u32,
                Prop {
                    text: format!("(part of {} shared)", ir.props[p].text),
                    disjuncts: vec![part.clone()],
                    origins: ir.props[p].origins.clone(),
                },
            ));
            (n + added.len() - 1) as u32
        });
        let k = q as usize - n;
        added[k].0 = added[k].0.min(p as u32);
        let mut rest: Vec<Lit> = d.iter().copied().filter(|l| !part.contains(l)).collect();
        rest.push(Lit::pos(Input::Prop(q)));
        ir.props[p].disjuncts = vec![rest];
    }
    if added.is_empty() {
        return;
    }
    let mut key: Vec<Lit> = Vec::new();
    for p in 0..n {
        if !outside(p) || ir.props[p].disjuncts.len() < 2 {
            continue;
        }
        for c in &mut ir.props[p].disjuncts {
            if c.len() < 2 {
                continue;
            }
            key.clear();
            key.extend_from_slice(c);
            key.sort_unstable();
            if let Some(&q) = parts.get(key.as_slice()) {
                *c = vec![Lit::pos(Input::Prop(q))];
                let k = q as usize - n;
                added[k].0 = added[k].0.min(p as u32);
            }
        }
    }
    insert(ir, added);
}

/// `c` sorted.
fn sorted(c: &[Lit]) -> Vec<Lit> {
    let mut c = c.to_vec();
    c.sort_unstable();
    c
}

/// The largest part of `d` (at least two literals, fewer than all) that is one of
/// `disjuncts`, sorted; the first in the order of subsets among parts of one size. Only the
/// literals of `d` in `read` (those the disjuncts read) are tried, and each part is looked up
/// in place, so a conjunction of eight literals of which two are read tries one part, not 246.
fn largest_part(d: &[Lit], disjuncts: &HashSet<Vec<Lit>>, read: &HashSet<Lit>) -> Option<Vec<Lit>> {
    if d.len() < 3 || d.len() > MAX_LEN {
        return None;
    }
    let d = sorted(d);
    // The positions of `d` a part may hold.
    let candidates = (0..d.len())
        .filter(|&i| read.contains(&d[i]))
        .fold(0u32, |m, i| m | 1 << i);
    if candidates.count_ones() < 2 {
        return None;
    }
    let all = (1u32 << d.len()) - 1;
    // The literals of `d` at the set bits of `mask`, into `part`.
    let fill = |mask: u32, part: &mut Vec<Lit>| {
        part.clear();
        part.extend((0..d.len()).filter(|&i| mask >> i & 1 != 0).map(|i| d[i]));
    };
    let mut part: Vec<Lit> = Vec::with_capacity(d.len());
    let mut best: Option<(u32, u32)> = None;
    for mask in 1..all {
        let size = mask.count_ones();
        if mask & !candidates != 0 || size < 2 || best.is_some_and(|(s, _)| s >= size) {
            continue;
        }
        fill(mask, &mut part);
        if disjuncts.contains(part.as_slice()) {
            best = Some((size, mask));
        }
    }
    let (_, mask) = best?;
    fill(mask, &mut part);
    Some(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bit(b: u32) -> Lit {
        Lit::pos(Input::Bit(b))
    }

    fn set(cs: &[&[Lit]]) -> (HashSet<Vec<Lit>>, HashSet<Lit>) {
        let disjuncts: HashSet<Vec<Lit>> = cs.iter().map(|c| sorted(c)).collect();
        let read = cs.iter().flat_map(|c| c.iter().copied()).collect();
        (disjuncts, read)
    }

    #[test]
    fn the_largest_part_among_the_literals_read_is_found() {
        let (disjuncts, read) = set(&[
            &[bit(2), bit(5)],
            &[bit(2), bit(5), bit(7)],
            &[bit(1), bit(9)],
        ]);
        let d = [bit(7), bit(3), bit(5), bit(2), bit(4)];
        assert_eq!(
            largest_part(&d, &disjuncts, &read),
            Some(vec![bit(2), bit(5), bit(7)])
        );
        // Of two parts of one size, the first in the order of subsets of the sorted literals.
        let (disjuncts, read) = set(&[&[bit(3), bit(4)], &[bit(1), bit(2)]]);
        let d = [bit(4), bit(3), bit(2), bit(1), bit(6)];
        assert_eq!(
            largest_part(&d, &disjuncts, &read),
            Some(vec![bit(1), bit(2)])
        );
    }

    #[test]
    fn the_whole_conjunction_is_not_a_part() {
        let (disjuncts, read) = set(&[&[bit(1), bit(2), bit(3)], &[bit(1), bit(2)]]);
        let d = [bit(3), bit(2), bit(1)];
        assert_eq!(
            largest_part(&d, &disjuncts, &read),
            Some(vec![bit(1), bit(2)])
        );
        let (disjuncts, read) = set(&[&[bit(1), bit(2), bit(3)]]);
        assert_eq!(largest_part(&d, &disjuncts, &read), None);
        // One literal read is no part.
        let (disjuncts, read) = set(&[&[bit(1), bit(8)]]);
        assert_eq!(
            largest_part(&[bit(1), bit(2), bit(3)], &disjuncts, &read),
            None
        );
    }
}
