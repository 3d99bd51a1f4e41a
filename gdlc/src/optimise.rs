//! Simplification of the [`Ir`]: every pass preserves the value of every output in every
//! reachable state.
//!
//! - [`simplify`]: constant propagation, props that are one literal replaced by it (aliases),
//!   identical props merged (hash-consing), conjunctions with `x & !x` dropped;
//! - [`constant_bits`]: state bits that keep their initial value in every reachable state
//!   (an inductive invariant, found as a greatest fixpoint) become constants;
//! - [`factor`]: literals common to the disjuncts of a prop are factored out ([`factor_groups`]:
//!   also those common to groups of them, for the propnet backend's network);
//! - [`share_conjunctions`]: a prop of one conjunction reads the part of it that is a disjunct
//!   of another prop through a prop of that part (for the propnet backend's network);
//! - [`absorb`]: a disjunct of one literal `u` absorbs the disjuncts that contain `u` and
//!   strengthens those that contain `!u` (for the propnet backend's network);
//! - [`distribute_units`]: conjunctions of a disjunction reading props with the same
//!   one-literal disjunct `u` read `u` once (for the propnet backend's network);
//! - [`demux`]: a literal read with many selectors seldom true together reads them through
//!   blocks (for the propnet backend's network);
//! - [`guard_chains`]: a chain of one-conjunction props read with a seldom-true state bit is
//!   read again starting from the bit (for the propnet backend's network);
//! - [`remove_dead`]: props no output reads are removed and the rest renumbered (first, after
//!   the first simplification, and last).

mod absorb;
mod chain;
mod demux;
mod distribute;
mod factor;
mod share;

use std::hash::BuildHasher;
use std::ops::Range;

pub use absorb::absorb;
pub use chain::{ChainOptions, candidates as guard_chain_candidates, guard_chains};
pub use demux::{Activity, DemuxOptions, candidates as demux_candidates, demux};
pub use distribute::distribute_units;
pub use factor::{factor, factor_groups};
pub use share::share_conjunctions;

use crate::ir::{Input, Ir, Lit};
use crate::progress::ProgressHook;

/// Options of [`optimise`].
#[derive(Clone, Debug)]
pub struct OptimiseOptions {
    /// Find state bits that never change.
    pub constant_bits: bool,
    /// Factor out literals common to the disjuncts of a prop.
    pub factor: bool,
}

impl Default for OptimiseOptions {
    fn default() -> Self {
        OptimiseOptions {
            constant_bits: true,
            factor: true,
        }
    }
}

/// Runs every pass.
pub fn optimise(ir: &mut Ir, options: &OptimiseOptions) {
    optimise_reporting(ir, options, &ProgressHook::default());
}

/// [`optimise`], telling `progress` which pass runs (the passes done of the passes to run).
pub fn optimise_reporting(ir: &mut Ir, options: &OptimiseOptions, progress: &ProgressHook) {
    type Pass = (&'static str, fn(&mut Ir));
    // Props no output reads are removed first, and again once simplification has merged
    // identical props and folded constants: grounding derives many atoms that no output
    // reads (crisscross: 845k props, 3k read), and the other passes cost what they visit.
    let mut passes: Vec<Pass> = vec![
        ("remove dead props", remove_dead),
        ("simplify", simplify),
        ("remove dead props", remove_dead),
    ];
    if options.constant_bits {
        passes.push(("constant bits", constant_bits));
        passes.push(("simplify", simplify));
    }
    if options.factor {
        passes.push(("factor", factor));
        passes.push(("simplify", simplify));
    }
    passes.push(("remove dead props", remove_dead));
    let total = passes.len() as u64;
    for (i, (name, pass)) in passes.into_iter().enumerate() {
        progress.step(name, i as u64, total);
        let clock = std::time::Instant::now();
        pass(ir);
        tracing::debug!(pass = name, elapsed = ?clock.elapsed(), props = ir.props.len(), "optimised");
    }
    progress.step("passes", total, total);
}

/// Substitutes `subst` into a literal: a reference to prop `p` becomes `subst[p]`.
fn apply(l: Lit, subst: &[Lit]) -> Lit {
    match l.input {
        Input::Prop(p) => {
            let s = subst[p as usize];
            if l.negated { s.negate() } else { s }
        }
        _ => l.folded(),
    }
}

/// Simplifies a disjunction of conjunctions: `None` means the whole is true (the disjuncts
/// are then left in no particular state). In place: the compiler simplifies every prop
/// several times, and a new vector per prop was a tenth of the pass in the allocator.
fn simplify_dnf(disjuncts: &mut Vec<Vec<Lit>>) -> Option<()> {
    let mut whole = false;
    disjuncts.retain_mut(|conj| {
        if whole || conj.iter().any(|l| l.constant() == Some(false)) {
            return false;
        }
        conj.retain(|l| l.constant() != Some(true));
        conj.sort_unstable();
        conj.dedup();
        // `x & !x`: sorted literals put the two next to each other.
        if conj.windows(2).any(|w| w[0].input == w[1].input) {
            return false;
        }
        whole = conj.is_empty();
        !whole
    });
    if whole {
        return None;
    }
    disjuncts.sort_unstable();
    disjuncts.dedup();
    // What lowering left spare (a new vector had none, and the props are the peak).
    disjuncts.shrink_to_fit();
    Some(())
}

/// Constant propagation, aliases and merging of identical props, in one forward pass.
pub fn simplify(ir: &mut Ir) {
    let group_of = ir.group_of();
    let mut subst: Vec<Lit> = (0..ir.props.len() as u32)
        .map(|p| Lit::pos(Input::Prop(p)))
        .collect();
    // Props by their disjuncts, hashed in place (not cloned into keys): a prop is not changed
    // again once it is in the table. Sized for every prop: growing would hash the disjuncts of
    // every prop in the table again.
    let mut seen: hashbrown::HashTable<u32> = hashbrown::HashTable::with_capacity(ir.props.len());
    let hasher = rustc_hash::FxBuildHasher;
    for p in 0..ir.props.len() {
        let prop = &mut ir.props[p];
        for conj in &mut prop.disjuncts {
            for l in conj.iter_mut() {
                *l = apply(*l, &subst);
            }
        }
        if simplify_dnf(&mut prop.disjuncts).is_none() {
            prop.disjuncts = vec![Vec::new()];
            subst[p] = Lit::TRUE;
            continue;
        }
        if prop.disjuncts.is_empty() {
            subst[p] = Lit::FALSE;
            continue;
        }
        if group_of[p].is_some() {
            continue;
        }
        if let [conj] = &prop.disjuncts[..]
            && let [l] = conj[..]
        {
            subst[p] = l;
            continue;
        }
        let props = &ir.props;
        let hash = hasher.hash_one(&props[p].disjuncts);
        match seen.find(hash, |&q| props[q as usize].disjuncts == props[p].disjuncts) {
            Some(&q) => subst[p] = Lit::pos(Input::Prop(q)),
            None => {
                seen.insert_unique(hash, p as u32, |&q| {
                    hasher.hash_one(&props[q as usize].disjuncts)
                });
            }
        }
    }
    // References inside groups to later members of the group were not substituted yet.
    for r in &ir.groups {
        for p in r.clone() {
            for conj in &mut ir.props[p as usize].disjuncts {
                for l in conj.iter_mut() {
                    *l = apply(*l, &subst);
                }
            }
        }
    }
    ir.map_outputs(&mut |l| apply(l, &subst));
}

/// Removes the props that no output reads and renumbers the rest.
pub fn remove_dead(ir: &mut Ir) {
    let n = ir.props.len();
    let mut live = vec![false; n];
    ir.for_each_output(&mut |l| {
        if let Input::Prop(p) = l.input {
            live[p as usize] = true;
        }
    });
    let group_of = ir.group_of();
    // Groups: a live member makes the whole group live (members read each other).
    let mut p = n;
    while p > 0 {
        p -= 1;
        if !live[p] {
            continue;
        }
        if let Some(g) = group_of[p] {
            let r = ir.groups[g as usize].clone();
            for q in r.clone() {
                live[q as usize] = true;
            }
            // Read the whole group's inputs below.
            for q in r {
                mark(&ir.props[q as usize].disjuncts, &mut live);
            }
        } else {
            mark(&ir.props[p].disjuncts, &mut live);
        }
    }
    let mut renumber: Vec<u32> = (0..n as u32).collect();
    // Nothing to renumber when every prop is live (lowering keeps only live props).
    if let Some(first_dead) = live.iter().position(|&x| !x) {
        let mut next = first_dead as u32;
        for p in first_dead..n {
            renumber[p] = u32::MAX;
            if live[p] {
                renumber[p] = next;
                next += 1;
            }
        }
        // Compacted in place (moving every prop into a new vector was a third of the pass).
        let mut p = 0;
        ir.props.retain(|_| {
            p += 1;
            live[p - 1]
        });
        let re = |l: Lit| match l.input {
            Input::Prop(p) => Lit {
                input: Input::Prop(renumber[p as usize]),
                negated: l.negated,
            },
            _ => l,
        };
        // A prop before the first dead one keeps its number, and so do the props it reads
        // unless it is in a recursive group (outside groups a prop reads earlier props only,
        // which the marking above relies on too).
        for (p, prop) in ir.props.iter_mut().enumerate() {
            if p < first_dead && group_of[p].is_none() {
                continue;
            }
            for conj in &mut prop.disjuncts {
                for l in conj.iter_mut() {
                    *l = re(*l);
                }
            }
        }
        ir.map_outputs(&mut |l| re(l));
    }
    let groups = std::mem::take(&mut ir.groups);
    for r in groups {
        let members: Vec<u32> = r
            .filter(|&p| live[p as usize])
            .map(|p| renumber[p as usize])
            .collect();
        if let (Some(&a), Some(&b)) = (members.first(), members.last()) {
            let range = a..b + 1;
            let self_loop = members.len() == 1
                && ir.props[a as usize]
                    .disjuncts
                    .iter()
                    .flatten()
                    .any(|l| l.input == Input::Prop(a));
            if members.len() > 1 || self_loop {
                ir.groups.push(range);
            }
        }
    }
}

fn mark(disjuncts: &[Vec<Lit>], live: &mut [bool]) {
    for l in disjuncts.iter().flatten() {
        if let Input::Prop(q) = l.input {
            live[q as usize] = true;
        }
    }
}

/// `ir` as it is where state bit `bit` has the value `value`: the bit replaced by that
/// constant and the props simplified (the code of `legal_<r>_turn`, called only where whose
/// turn it is holds, need not test it in every move).
pub fn assume_bit(ir: &mut Ir, bit: u32, value: bool) {
    let mut values = vec![None; ir.bits.len()];
    if let Some(v) = values.get_mut(bit as usize) {
        *v = Some(value);
    }
    fix_bits(ir, &values);
    simplify(ir);
}

/// Replaces bit `b` by `value[b]` wherever it is `Some`.
fn fix_bits(ir: &mut Ir, value: &[Option<bool>]) {
    let f = |l: Lit| match l.input {
        Input::Bit(b) => match value[b as usize] {
            Some(v) => Lit {
                input: Input::Const(v),
                negated: l.negated,
            }
            .folded(),
            None => l,
        },
        _ => l,
    };
    for prop in &mut ir.props {
        for conj in &mut prop.disjuncts {
            for l in conj.iter_mut() {
                *l = f(*l);
            }
        }
    }
    ir.map_outputs(&mut |l| f(l));
}

/// The bounds `(lowest, highest)` of a literal's value over every value of the unknown
/// inputs: bits without a value in `bits`, moves, and props whose bounds `vals` gives.
fn lit3(l: Lit, bits: &[Option<bool>], vals: &[(bool, bool)]) -> (bool, bool) {
    let (lo, hi) = match l.input {
        Input::Const(b) => (b, b),
        Input::Bit(b) => bits
            .get(b as usize)
            .copied()
            .flatten()
            .map_or((false, true), |v| (v, v)),
        Input::Does { .. } | Input::MoveIn(_) | Input::Join(_) => (false, true),
        Input::Prop(p) => vals.get(p as usize).copied().unwrap_or((false, true)),
    };
    if l.negated { (!hi, !lo) } else { (lo, hi) }
}

/// The bounds of a disjunction of conjunctions.
fn dnf3(d: &[Vec<Lit>], bits: &[Option<bool>], vals: &[(bool, bool)]) -> (bool, bool) {
    let mut out = (false, false);
    for c in d {
        let mut conj = (true, true);
        for &l in c {
            let (lo, hi) = lit3(l, bits, vals);
            conj = (conj.0 && lo, conj.1 && hi);
        }
        out = (out.0 || conj.0, out.1 || conj.1);
    }
    out
}

/// The bounds of the props of a recursive group: from false until nothing changes, which their
/// positivity makes a least fixpoint.
fn group3(ir: &Ir, range: Range<u32>, bits: &[Option<bool>], vals: &mut [(bool, bool)]) {
    for q in range.clone() {
        vals[q as usize] = (false, false);
    }
    loop {
        let mut changed = false;
        for q in range.clone() {
            let v = dnf3(&ir.props[q as usize].disjuncts, bits, vals);
            changed |= v != vals[q as usize];
            vals[q as usize] = v;
        }
        if !changed {
            break;
        }
    }
}

/// The bounds of every prop (three-valued evaluation in order, recursive groups by
/// [`group3`]).
fn eval3(ir: &Ir, bits: &[Option<bool>], group_of: &[Option<u32>]) -> Vec<(bool, bool)> {
    let n = ir.props.len();
    let mut vals = vec![(false, false); n];
    let mut p = 0;
    while p < n {
        let Some(g) = group_of[p] else {
            vals[p] = dnf3(&ir.props[p].disjuncts, bits, &vals);
            p += 1;
            continue;
        };
        let range = ir.groups[g as usize].clone();
        p = range.end as usize;
        group3(ir, range, bits, &mut vals);
    }
    vals
}

/// For each state bit and each prop, the props whose disjuncts read it (compressed rows:
/// the readers of input `i` are `readers[start[i]..start[i + 1]]`; bits first, then props).
struct Readers {
    start: Vec<u32>,
    readers: Vec<u32>,
    nbits: usize,
}

impl Readers {
    fn new(ir: &Ir) -> Readers {
        let nbits = ir.bits.len();
        let slot = |l: &Lit| match l.input {
            Input::Bit(b) => Some(b as usize),
            Input::Prop(q) => Some(nbits + q as usize),
            _ => None,
        };
        let mut start = vec![0u32; nbits + ir.props.len() + 1];
        for prop in &ir.props {
            for l in prop.disjuncts.iter().flatten() {
                if let Some(i) = slot(l) {
                    start[i + 1] += 1;
                }
            }
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut fill = start.clone();
        let mut readers = vec![0u32; start.last().map_or(0, |&n| n as usize)];
        for (p, prop) in ir.props.iter().enumerate() {
            for l in prop.disjuncts.iter().flatten() {
                if let Some(i) = slot(l) {
                    readers[fill[i] as usize] = p as u32;
                    fill[i] += 1;
                }
            }
        }
        Readers {
            start,
            readers,
            nbits,
        }
    }

    fn of(&self, i: usize) -> &[u32] {
        &self.readers[self.start[i] as usize..self.start[i + 1] as usize]
    }

    fn of_bit(&self, b: usize) -> &[u32] {
        self.of(b)
    }

    fn of_prop(&self, p: usize) -> &[u32] {
        self.of(self.nbits + p)
    }
}

/// Finds the bits that keep their initial value in every reachable state: the largest set
/// such that, assuming those bits hold their initial values, each one's `next` simplifies to
/// that value whatever the other bits and the moves. Those bits become constants (the true
/// ones [`Ir::constant_facts`]) and the others are renumbered.
///
/// The candidates shrink round by round; after a round only the props that read a dropped
/// bit, directly or through other props, are evaluated again (in order), so a long chain of
/// rounds costs what changes, not the whole circuit each time.
pub fn constant_bits(ir: &mut Ir) {
    let nbits = ir.bits.len();
    let mut init = vec![false; nbits];
    for &b in &ir.init {
        init[b as usize] = true;
    }
    let mut cand: Vec<Option<bool>> = init.iter().map(|&v| Some(v)).collect();
    let group_of = ir.group_of();
    let n = ir.props.len();
    let mut vals = eval3(ir, &cand, &group_of);
    let mut readers: Option<Readers> = None;
    let mut dirty = vec![false; n];
    loop {
        let before = cand.clone();
        let mut dropped = Vec::new();
        for (b, (c, &next)) in cand.iter_mut().zip(&ir.next).enumerate() {
            if let Some(v) = *c
                && lit3(next, &before, &vals) != (v, v)
            {
                *c = None;
                dropped.push(b);
            }
        }
        if dropped.is_empty() {
            break;
        }
        let readers = readers.get_or_insert_with(|| Readers::new(ir));
        let mut p = n;
        for b in dropped {
            for &q in readers.of_bit(b) {
                dirty[q as usize] = true;
                p = p.min(q as usize);
            }
        }
        while p < n {
            if !dirty[p] {
                p += 1;
                continue;
            }
            let members = match group_of[p] {
                None => p as u32..p as u32 + 1,
                Some(g) => ir.groups[g as usize].clone(),
            };
            let old: Vec<(bool, bool)> = members.clone().map(|q| vals[q as usize]).collect();
            match group_of[p] {
                None => vals[p] = dnf3(&ir.props[p].disjuncts, &cand, &vals),
                Some(_) => group3(ir, members.clone(), &cand, &mut vals),
            }
            for (q, was) in members.clone().zip(old) {
                dirty[q as usize] = false;
                if vals[q as usize] != was {
                    // Members of the group were just evaluated together.
                    for &r in readers.of_prop(q as usize) {
                        if !members.contains(&r) {
                            dirty[r as usize] = true;
                        }
                    }
                }
            }
            p = members.end as usize;
        }
    }
    if cand.iter().all(Option::is_none) {
        return;
    }
    fix_bits(ir, &cand);
    let mut renumber = vec![u32::MAX; nbits];
    let mut bits = Vec::new();
    let mut next = Vec::new();
    for b in 0..nbits {
        match cand[b] {
            Some(true) => ir.constant_facts.push(ir.bits[b].clone()),
            Some(false) => {}
            None => {
                renumber[b] = bits.len() as u32;
                bits.push(ir.bits[b].clone());
                next.push(ir.next[b]);
            }
        }
    }
    ir.constant_facts.sort();
    let re = |l: Lit| match l.input {
        Input::Bit(b) => Lit {
            input: Input::Bit(renumber[b as usize]),
            negated: l.negated,
        },
        _ => l,
    };
    ir.bits = bits;
    ir.next = next;
    ir.init = ir
        .init
        .iter()
        .filter(|&&b| cand[b as usize].is_none())
        .map(|&b| renumber[b as usize])
        .collect();
    for prop in &mut ir.props {
        for conj in &mut prop.disjuncts {
            for l in conj.iter_mut() {
                *l = re(*l);
            }
        }
    }
    ir.map_outputs(&mut |l| re(l));
}
