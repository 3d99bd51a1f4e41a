//! Chains of conjunctions read under a guard (the propnet backend's network only).
//!
//! A conjunction `g & q & r` whose prop `q` is one conjunction `l_1 & q'`, `q'` one conjunction
//! `l_2 & q''`, and so on (a *chain*: chess's `(openStretch ?x1 ?y1 ?x3 ?y3 ?dir)`, "the cells
//! from 1 to 3 are empty", is "1 is empty and the stretch from the next cell is"), and a state
//! bit `g` seldom true (a piece on the ray's first cell) is rewritten as `t & r`, where `t` is
//! the chain again with `g` read first: `t_1 = g & l_1`, `t_2 = t_1 & l_2`, .. The props `t_k`
//! are shared by every conjunction with the same guard and the same start of its chain (the
//! moves of one piece along one ray share the cells they cross), and while `g` is false none
//! of them holds, so a change of a cell changes the gates of the rays of the pieces that see
//! it, where the chain changed every stretch of empty cells through it, a piece at its end or
//! not. Once every reader of a chain reads it so, the chain is dead.
//!
//! Which bits are seldom true is measured (the caller samples playouts), never assumed; a
//! wrong guess costs speed, never correctness: every prop keeps its value in every state.

use rustc_hash::FxHashMap as HashMap;

use super::Activity;
use super::factor::insert;
use crate::ir::{Input, Ir, Lit, Prop};

/// Options of [`guard_chains`].
#[derive(Clone, Debug)]
pub struct ChainOptions {
    /// Per state bit, its activity in sampled playouts.
    pub bits: Vec<Activity>,
    /// The most a guard may hold (fraction of states).
    pub max_held: f64,
    /// The most links of a chain read under a guard.
    pub max_links: usize,
}

impl Default for ChainOptions {
    fn default() -> Self {
        ChainOptions {
            bits: Vec::new(),
            max_held: 0.125,
            max_links: 32,
        }
    }
}

/// One link of a chain: the literals of a prop of one conjunction but for the next link.
struct Link {
    rest: Vec<Lit>,
    next: Option<u32>,
}

/// Per prop outside recursive groups that is one conjunction, its link.
fn links(ir: &Ir) -> Vec<Option<Link>> {
    let group_of = ir.group_of();
    let single = |q: u32| {
        let q = q as usize;
        q < ir.props.len() && group_of[q].is_none() && ir.props[q].disjuncts.len() == 1
    };
    (0..ir.props.len())
        .map(|p| {
            if !single(p as u32) {
                return None;
            }
            let c = &ir.props[p].disjuncts[0];
            let mut nexts = c.iter().filter_map(|l| match l.input {
                Input::Prop(q) if !l.negated && single(q) => Some(q),
                _ => None,
            });
            let next = match (nexts.next(), nexts.next()) {
                (Some(q), None) => Some(q),
                _ => None,
            };
            let rest = c
                .iter()
                .copied()
                .filter(|l| next.is_none_or(|q| l.input != Input::Prop(q) || l.negated))
                .collect();
            Some(Link { rest, next })
        })
        .collect()
}

/// The guard of conjunction `c`: its positive state bit that holds in at most
/// [`ChainOptions::max_held`] of the states and changes least.
fn guard(c: &[Lit], options: &ChainOptions) -> Option<Lit> {
    c.iter()
        .filter_map(|&l| match (l.input, l.negated) {
            (Input::Bit(b), false) => {
                let a = options.bits.get(b as usize)?;
                (a.held <= options.max_held).then_some((a.changes, l))
            }
            _ => None,
        })
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, l)| l)
}

/// Whether some conjunction reads a positive state bit and a positive prop of one conjunction
/// (outside recursive groups): what [`guard_chains`] may rewrite, given the bits' activity.
pub fn candidates(ir: &Ir) -> bool {
    let group_of = ir.group_of();
    let single = |q: u32| {
        let q = q as usize;
        q < ir.props.len() && group_of[q].is_none() && ir.props[q].disjuncts.len() == 1
    };
    ir.props.iter().enumerate().any(|(h, p)| {
        group_of[h].is_none()
            && p.disjuncts.iter().any(|c| {
                let pos = |f: &dyn Fn(Input) -> bool| c.iter().any(|l| !l.negated && f(l.input));
                pos(&|i| matches!(i, Input::Bit(_)))
                    && pos(&|i| matches!(i, Input::Prop(q) if single(q)))
            })
    })
}

/// Rewrites the conjunctions that read a chain with a guard, as the
/// module documentation says. Returns whether any prop changed.
///
/// The longest chains are read first, so that a link of several literals of a shorter one
/// (the last: `(openPath 3 1 3 5 n)` is `!(occupied 3 4) & !(occupied 3 5)` once its last
/// link, one literal, is inlined) steps through the links of one literal that the longer
/// ones made (`t & !(occupied 3 4)`, then `& !(occupied 3 5)`): the target of each ray reads
/// one link of the ray's chain, not a link of its own.
pub fn guard_chains(ir: &mut Ir, options: &ChainOptions) -> bool {
    let n = ir.props.len();
    let links = links(ir);
    let group_of = ir.group_of();
    // Per conjunction to rewrite (prop, disjunct): its guard, the chain it reads and the
    // chain's length.
    let mut jobs: Vec<(usize, usize, Lit, u32, usize)> = Vec::new();
    for (h, prop) in ir.props.iter().enumerate() {
        if group_of[h].is_some() {
            continue;
        }
        for (i, c) in prop.disjuncts.iter().enumerate() {
            let Some(g) = guard(c, options) else {
                continue;
            };
            // The chain read: the positive prop of one conjunction with the most links.
            let Some((q, len)) = c
                .iter()
                .filter_map(|l| match l.input {
                    Input::Prop(q) if !l.negated && links[q as usize].is_some() => {
                        Some((q, chain_len(&links, q, options.max_links)))
                    }
                    _ => None,
                })
                .filter(|&(q, len)| len >= 2 || plain(&links, q))
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            else {
                continue;
            };
            jobs.push((h, i, g, q, len));
        }
    }
    // Longest first; then in the order of the props (a stable sort).
    jobs.sort_by_key(|j| std::cmp::Reverse(j.4));
    let mut made = Made {
        n,
        links: HashMap::default(),
        steps: HashMap::default(),
        added: Vec::new(),
    };
    let mut rewrites: Vec<(usize, usize, Lit, Lit, Lit)> = Vec::new();
    for &(h, i, g, q, _) in &jobs {
        // About as many props added as there were, at most (or 4,096 in a small IR).
        if made.added.len() >= n.max(4096) {
            break;
        }
        let t = made.chain(ir, &links, options, (h, g, q));
        rewrites.push((h, i, g, Lit::pos(Input::Prop(q)), t));
    }
    let changed = !rewrites.is_empty();
    if changed {
        let added = made.placed(&rewrites);
        for (h, i, g, q_lit, t) in rewrites {
            tracing::trace!("chain: {} reads {q_lit} under {g}", ir.props[h].text);
            let c = &mut ir.props[h].disjuncts[i];
            c.retain(|&l| l != g && l != q_lit);
            c.push(t);
            c.sort_unstable();
        }
        insert(ir, added);
    }
    changed
}

/// The links [`guard_chains`] has made.
struct Made {
    /// The props of the IR before (the links are numbered from here).
    n: usize,
    /// By what a link reads: the link before it (or the guard) and its chain prop.
    links: HashMap<(Lit, u32), Lit>,
    /// The links of one literal besides the link before: by the two.
    steps: HashMap<(Lit, Lit), Lit>,
    /// The links made: the first prop that reads them, and each as a prop.
    added: Vec<(u32, Prop)>,
}

impl Made {
    /// The last link of the chain from `q` read under guard `g` by prop `h`, made as far as
    /// needed.
    fn chain(
        &mut self,
        ir: &Ir,
        links: &[Option<Link>],
        options: &ChainOptions,
        (h, g, q): (usize, Lit, u32),
    ) -> Lit {
        let mut t = g;
        let mut at = Some(q);
        let mut k = 0;
        while let Some(p) = at
            && k < options.max_links
            && let Some(link) = &links[p as usize]
        {
            let text = || format!("{} (under {g})", ir.props[p as usize].text);
            t = self.link(ir, h, (t, p), &link.rest, text);
            at = link.next;
            k += 1;
        }
        if let Some(p) = at {
            // Links past the limit: read as they are.
            let text = || ir.props[p as usize].text.clone();
            t = self.link(ir, h, (t, p), &[Lit::pos(Input::Prop(p))], text);
        }
        t
    }

    /// The links made, each to go before the first prop that reads it, through the links
    /// that read it too (`rewrites`: the props that read a link, and which): a link is made
    /// after those it reads, but may be read by a prop before the one it was made for.
    fn placed(self, rewrites: &[(usize, usize, Lit, Lit, Lit)]) -> Vec<(u32, Prop)> {
        let n = self.n;
        let mut added = self.added;
        let mut before = vec![u32::MAX; added.len()];
        let link = |l: Lit| match l.input {
            Input::Prop(q) if q as usize >= n => Some(q as usize - n),
            _ => None,
        };
        for &(h, .., t) in rewrites {
            if let Some(k) = link(t) {
                before[k] = before[k].min(h as u32);
            }
        }
        for k in (0..added.len()).rev() {
            let b = before[k];
            for l in added[k].1.disjuncts.iter().flatten() {
                if let Some(j) = link(*l) {
                    before[j] = before[j].min(b);
                }
            }
        }
        for (a, b) in added.iter_mut().zip(before) {
            a.0 = a.0.min(b);
        }
        added
    }

    /// The link `t & rest` of the chain prop `p`, read (first) by prop `h`: made once per `t`
    /// and `p`, and through the links of one literal from `t` that are made already for the
    /// literals of `rest`, so that it is one of them when `rest` is.
    fn link(
        &mut self,
        ir: &Ir,
        h: usize,
        (t, p): (Lit, u32),
        rest: &[Lit],
        text: impl Fn() -> String,
    ) -> Lit {
        if let Some(&l) = self.links.get(&(t, p)) {
            return l;
        }
        let mut rest: Vec<Lit> = rest.iter().copied().filter(|&l| l != t).collect();
        rest.sort_unstable();
        rest.dedup();
        let mut from = t;
        while let Some(k) = rest
            .iter()
            .position(|&l| self.steps.contains_key(&(from, l)))
        {
            from = self.steps[&(from, rest.remove(k))];
        }
        let l = match rest[..] {
            [] => from,
            _ => {
                let mut lits = rest.clone();
                lits.push(from);
                lits.sort_unstable();
                let id = (self.n + self.added.len()) as u32;
                self.added.push((
                    h as u32,
                    Prop {
                        text: text(),
                        disjuncts: vec![lits],
                        origins: ir.props[p as usize].origins.clone(),
                    },
                ));
                let l = Lit::pos(Input::Prop(id));
                if let [one] = rest[..] {
                    self.steps.insert((from, one), l);
                }
                l
            }
        };
        self.links.insert((t, p), l);
        l
    }
}

/// Whether the link `q` reads no prop but negated ones (the cells of a stretch are empty): a
/// chain of one link is read under a guard only then, not demux's blocks (`l & (s_1 | ..)`,
/// read with a selector `s_k` each: under it, the selectors would be read one by one again).
fn plain(links: &[Option<Link>], q: u32) -> bool {
    links[q as usize].as_ref().is_some_and(|link| {
        link.rest
            .iter()
            .all(|l| l.negated || !matches!(l.input, Input::Prop(_)))
    })
}

/// The links of the chain from `q`, at most `max`.
fn chain_len(links: &[Option<Link>], q: u32, max: usize) -> usize {
    let mut k = 0;
    let mut at = Some(q);
    while let Some(p) = at
        && k < max
        && let Some(link) = &links[p as usize]
    {
        at = link.next;
        k += 1;
    }
    k
}
