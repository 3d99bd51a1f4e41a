//! Fan-out trees for a literal read together with selectors that are rarely true at once (the
//! propnet backend's network only).
//!
//! A literal `l` read by many conjunctions, each with a state bit `s_k` of a family that is
//! seldom true more than once in a state (whose step it is, which group a cell belongs to),
//! costs the incremental engine one visit per conjunction at every change of `l`, though only
//! the conjunction whose `s_k` holds can change. Hex's `(next (connected ?k ?m ?n))` reads the
//! cells of the merged groups with each of 82 `(step ?k)`: every change of such a cell visits
//! 82 gates. Here the selectors are split into blocks `B_j` (about the square root of their
//! number, in bit order), and each conjunction reads `l & B_j` (a new prop, `B_j` the
//! disjunction of its block, shared by every literal with the same selectors) instead of
//! `l`: since `s_k` implies its block, the conjunction keeps its value in every state; a
//! change of `l` visits one gate per block and the conjunctions of the blocks that hold.
//!
//! Which families are seldom true together is measured, not proved: the caller gives the
//! activity (how often it holds, how often it changes) of each bit and of each literal that
//! [`candidates`] lists, and the states of sampled playouts, and a literal is rewritten when
//! the visits per state that this activity predicts drop by a margin ([`pays`]). A wrong guess
//! costs speed, never correctness.

use rustc_hash::FxHashMap as HashMap;

use super::factor::insert;
use crate::ir::{Input, Ir, Lit, Prop};

/// How a literal behaved in sampled playouts (per state: the state change, then the joint
/// move).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Activity {
    /// The fraction of states in which it held.
    pub held: f64,
    /// Its changes per state.
    pub changes: f64,
}

/// Options of [`demux`].
#[derive(Clone, Debug)]
pub struct DemuxOptions {
    /// Per state bit, its activity.
    pub bits: Vec<Activity>,
    /// Sampled states, in the order played (words of bits), for the activity of blocks.
    pub states: Vec<Vec<u64>>,
    /// The activity of the inputs of the [`candidates`] (positive).
    pub inputs: HashMap<Input, Activity>,
    /// Per prop, whether its conjunctions are left alone (the legal moves whose guard the
    /// network tests once when listing moves); missing props are not.
    pub keep: Vec<bool>,
    /// The fewest conjunctions (with distinct selectors) a literal must be read by.
    pub min_readers: usize,
    /// The most a selector may hold (fraction of states) to be one.
    pub max_held: f64,
}

impl Default for DemuxOptions {
    fn default() -> Self {
        DemuxOptions {
            bits: Vec::new(),
            states: Vec::new(),
            inputs: HashMap::default(),
            keep: Vec::new(),
            min_readers: 16,
            max_held: 0.5,
        }
    }
}

/// Whether `l` is a selector: a state bit that holds in at most `max_held` of the states.
fn selector(l: Lit, options: &DemuxOptions) -> Option<Activity> {
    match (l.input, l.negated) {
        (Input::Bit(b), false) => options
            .bits
            .get(b as usize)
            .copied()
            .filter(|a| a.held <= options.max_held),
        _ => None,
    }
}

/// Per literal read with selectors by at least [`DemuxOptions::min_readers`] conjunctions,
/// those conjunctions (outside recursive groups). Sorted, most read first.
fn readers(ir: &Ir, options: &DemuxOptions) -> Vec<(Lit, Vec<At>)> {
    let group_of = ir.group_of();
    let mut readers: HashMap<Lit, Vec<At>> = HashMap::default();
    for (p, prop) in ir.props.iter().enumerate() {
        if group_of[p].is_some() || options.keep.get(p).copied().unwrap_or(false) {
            continue;
        }
        for (d, conj) in prop.disjuncts.iter().enumerate() {
            if conj.len() < 2 {
                continue;
            }
            for &l in conj {
                if l.constant().is_some() {
                    continue;
                }
                if conj
                    .iter()
                    .any(|&s| s != l && selector(s, options).is_some())
                {
                    readers.entry(l).or_default().push((p as u32, d as u32));
                }
            }
        }
    }
    let mut order: Vec<(Lit, Vec<At>)> = readers
        .into_iter()
        .filter(|(_, r)| r.len() >= options.min_readers)
        .collect();
    order.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    order
}

/// The inputs whose [`Activity`] [`demux`] needs, given the bits' (every state bit with
/// [`DemuxOptions::bits`] set, whatever `inputs` holds).
pub fn candidates(ir: &Ir, options: &DemuxOptions) -> Vec<Input> {
    let mut out: Vec<Input> = readers(ir, options)
        .into_iter()
        .map(|(l, _)| l.input)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A conjunction: prop, disjunct.
type At = (u32, u32);

/// Rewrites the IR as the module documentation says.
pub fn demux(ir: &mut Ir, options: &DemuxOptions) {
    let n = ir.props.len();
    let order = readers(ir, options);
    let mut done: HashMap<At, ()> = HashMap::default();
    // New props (numbered from `n`), each with the old prop it goes before; blocks by their
    // selectors, shared.
    let mut added: Vec<(u32, Prop)> = Vec::new();
    let mut blocks: HashMap<Vec<Lit>, u32> = HashMap::default();
    // Per new prop, the least old prop that reads it (fixed up once all are known).
    let mut first_reader: Vec<u32> = Vec::new();
    // How many literals read each set of selectors (ignoring the conjunctions that an
    // earlier literal takes): the cost of a new block is shared by them.
    let mut sharing: HashMap<Vec<Lit>, usize> = HashMap::default();
    for (l, ats) in &order {
        let (_, selectors) = choose(ir, *l, ats, &done, options);
        *sharing.entry(selectors).or_default() += 1;
    }
    let mut cache: HashMap<Vec<Lit>, Activity> = HashMap::default();
    for (l, ats) in order {
        let (chosen, selectors) = choose(ir, l, &ats, &done, options);
        let size = (selectors.len() as f64).sqrt().ceil() as usize;
        if selectors.len() < options.min_readers {
            continue;
        }
        let shared = sharing.get(&selectors).copied().unwrap_or(1);
        let cost = Cost {
            size,
            shared,
            blocks: &blocks,
        };
        if !pays(l, &selectors, &cost, options, &mut cache) {
            continue;
        }
        tracing::debug!(literal = ?l, readers = chosen.len(), selectors = selectors.len(), "demux");
        // Per selector, the new prop `l & block` its conjunctions read.
        let mut gate_of: HashMap<Lit, Lit> = HashMap::default();
        for block in selectors.chunks(size) {
            let b = *blocks.entry(block.to_vec()).or_insert_with(|| {
                added.push((
                    0,
                    Prop {
                        text: format!("(block of {} selectors)", block.len()),
                        disjuncts: block.iter().map(|&s| vec![s]).collect(),
                        origins: Vec::new(),
                    },
                ));
                first_reader.push(u32::MAX);
                (n + added.len() - 1) as u32
            });
            added.push((
                0,
                Prop {
                    text: format!("(fan-out of one block of {} readers)", block.len()),
                    disjuncts: vec![vec![l, Lit::pos(Input::Prop(b))]],
                    origins: Vec::new(),
                },
            ));
            first_reader.push(u32::MAX);
            let h = (n + added.len() - 1) as u32;
            for &s in block {
                gate_of.insert(s, Lit::pos(Input::Prop(h)));
            }
        }
        for (at, s) in chosen {
            let Some(&g) = gate_of.get(&s) else { continue };
            done.insert(at, ());
            let conj = &mut ir.props[at.0 as usize].disjuncts[at.1 as usize];
            for x in conj.iter_mut() {
                if *x == l {
                    *x = g;
                }
            }
            if let Input::Prop(h) = g.input {
                let k = h as usize - n;
                first_reader[k] = first_reader[k].min(at.0);
            }
        }
    }
    if added.is_empty() {
        return;
    }
    // A block goes before the first reader of the gates that read it.
    for k in 0..added.len() {
        if let [c] = &added[k].1.disjuncts[..]
            && let [_, b] = c[..]
            && let Input::Prop(b) = b.input
            && b as usize >= n
        {
            let j = b as usize - n;
            first_reader[j] = first_reader[j].min(first_reader[k]);
        }
    }
    for (k, (before, _)) in added.iter_mut().enumerate() {
        // A gate no conjunction took (its selectors all rewritten by an earlier literal) is
        // placed first and removed as dead later.
        *before = if first_reader[k] == u32::MAX {
            0
        } else {
            first_reader[k]
        };
    }
    insert(ir, added);
}

/// Per conjunction of `ats` not rewritten yet, its selector: its rarest bit other than `l`;
/// and the selectors, sorted.
fn choose(
    ir: &Ir,
    l: Lit,
    ats: &[At],
    done: &HashMap<At, ()>,
    options: &DemuxOptions,
) -> (Vec<(At, Lit)>, Vec<Lit>) {
    let mut chosen: Vec<(At, Lit)> = Vec::new();
    for &at in ats {
        if done.contains_key(&at) {
            continue;
        }
        let conj = &ir.props[at.0 as usize].disjuncts[at.1 as usize];
        let best = conj
            .iter()
            .copied()
            .filter_map(|s| Some((s, selector(s, options)?)))
            .filter(|&(s, _)| s != l)
            .min_by(|(a, x), (b, y)| x.held.total_cmp(&y.held).then(a.cmp(b)))
            .map(|(s, _)| s);
        if let Some(s) = best {
            chosen.push((at, s));
        }
    }
    let mut selectors: Vec<Lit> = chosen.iter().map(|&(_, s)| s).collect();
    selectors.sort_unstable();
    selectors.dedup();
    (chosen, selectors)
}

/// How a literal's selectors would be split.
struct Cost<'a> {
    /// Selectors per block.
    size: usize,
    /// The literals that read the same selectors.
    shared: usize,
    /// The blocks made so far.
    blocks: &'a HashMap<Vec<Lit>, u32>,
}

/// The activity of the disjunction of `block` (state bits) over the sampled states.
fn block_activity(block: &[Lit], states: &[Vec<u64>]) -> Activity {
    let bits: Vec<usize> = block
        .iter()
        .filter_map(|l| match l.input {
            Input::Bit(b) => Some(b as usize),
            _ => None,
        })
        .collect();
    let (mut held, mut changes, mut last) = (0u64, 0u64, false);
    for s in states {
        let v = bits
            .iter()
            .any(|&b| s.get(b / 64).is_some_and(|w| w >> (b % 64) & 1 != 0));
        held += u64::from(v);
        changes += u64::from(v != last);
        last = v;
    }
    let n = states.len().max(1) as f64;
    Activity {
        held: held as f64 / n,
        changes: changes as f64 / n,
    }
}

/// Whether reading `l` through blocks of `size` of `selectors` visits fewer edges per state,
/// by the sampled activity: a change of `l` visits one gate per block and the conjunctions of
/// the blocks that hold, instead of every conjunction; a change of a selector visits its
/// block, which may change and change `l & block`, which visits the block's conjunctions
/// when `l` holds.
fn pays(
    l: Lit,
    selectors: &[Lit],
    cost: &Cost<'_>,
    options: &DemuxOptions,
    cache: &mut HashMap<Vec<Lit>, Activity>,
) -> bool {
    let Some(a) = options.inputs.get(&l.input) else {
        return false;
    };
    if options.states.is_empty() || cost.size == 0 {
        return false;
    }
    let held = if l.negated { 1.0 - a.held } else { a.held };
    let mut after = 0.0;
    let mut extra = 0.0;
    for block in selectors.chunks(cost.size) {
        let act = *cache
            .entry(block.to_vec())
            .or_insert_with(|| block_activity(block, &options.states));
        let len = block.len() as f64;
        // A change of `l` visits the block's gate, which changes when the block holds.
        after += 1.0 + act.held * (CHANGE + len);
        // A change of the block visits the gate, which changes when `l` holds.
        extra += act.changes * (CHANGE + 1.0 + held * (CHANGE + len));
        if !cost.blocks.contains_key(block) {
            let changes: f64 = block
                .iter()
                .filter_map(|&s| selector(s, options))
                .map(|x| x.changes)
                .sum();
            extra += changes / cost.shared as f64;
        }
    }
    a.changes * selectors.len() as f64 > MARGIN * (a.changes * after + extra)
}

/// The cost of a gate's change beyond the edges it visits (popping it, reading its record),
/// in visits.
const CHANGE: f64 = 3.0;

/// How much cheaper the estimate must be: the estimate is rough, the new gates cost memory,
/// and the visits saved are the cheap ones (a literal's targets lie side by side). Measured
/// (engine alone, alternating pairs): 1.25 gains 2-3% on hex over 1.5 and leaves chess_200,
/// checkers, speedChess and amazons_8x8 as they were; 1.1 rewrote a few literals of chess_200
/// for nothing (instructions +0.1%).
const MARGIN: f64 = 1.25;
