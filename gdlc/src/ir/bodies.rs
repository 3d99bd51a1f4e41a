//! The ground rules as lowering reads them, made in one pass over the rules: per rule its head
//! node, origin and body, each body literal either a node of the dependency graph (a derived
//! atom) or what it is as an input (a state bit, a move, false), in 4 bytes.
//!
//! Lowering reads every body literal several times (the graph's edges twice, the negative
//! edges, the live nodes, the props' conjunctions); from the ground rules each read was a
//! random look-up of a term-indexed table and of the term itself (on ruleDepthExponential and
//! amazonsTorus, most of lowering's time). Here each literal is looked up once, in rule order.

use super::{Input, Lit};
use crate::ground::GroundRule;
use crate::terms::TermId;

/// A ground rule: where its literals start, how many are positive (the negative ones follow),
/// how many there are, its head node and its origin.
#[derive(Clone, Copy, Debug)]
pub(super) struct RuleBody {
    start: u32,
    pos: u32,
    len: u32,
    pub(super) head: u32,
    pub(super) origin: u32,
}

impl RuleBody {
    /// The number of its literals.
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }
}

/// A body literal: a node, or an input known without the graph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Read {
    Node(u32),
    Leaf(Lit),
}

/// The ground rules' heads and bodies (see the [module documentation](self)).
pub(super) struct Bodies {
    rules: Vec<RuleBody>,
    /// Per literal: a node (below `nodes`), else `nodes` plus a state bit, or plus the bits'
    /// count and a move's index among all roles' moves, or else false.
    lits: Vec<u32>,
    nodes: u32,
    bits: u32,
    /// The index of each role's first move among all roles' moves.
    move_base: Vec<u32>,
    total_moves: u32,
}

/// What a body atom that is not a node reads: the answer of `leaf` (a state bit, a move, or
/// nothing).
pub(super) enum LeafOf {
    Bit(u32),
    Does { role: u32, mv: u32 },
    False,
}

impl Bodies {
    /// The bodies of `rules`, with `node` the node of an atom (if it is one) and `leaf`
    /// what an atom that is not a node reads. `None` when the codes do not fit in 32 bits
    /// (more nodes, bits and moves than any grounding's limits allow).
    pub(super) fn new(
        rules: &[GroundRule],
        (nodes, bits, moves): (usize, usize, &[usize]),
        node: &dyn Fn(TermId) -> Option<u32>,
        leaf: &dyn Fn(TermId) -> LeafOf,
    ) -> Option<Bodies> {
        let total_moves: usize = moves.iter().sum();
        let codes = nodes as u64 + bits as u64 + total_moves as u64 + 1;
        let lits_len: usize = rules.iter().map(|r| r.pos.len() + r.neg.len()).sum();
        if codes > u64::from(u32::MAX) || lits_len as u64 > u64::from(u32::MAX) {
            return None;
        }
        let mut move_base = Vec::with_capacity(moves.len());
        let mut base = 0u32;
        for &m in moves {
            move_base.push(base);
            base += m as u32;
        }
        let mut b = Bodies {
            rules: Vec::with_capacity(rules.len()),
            lits: Vec::with_capacity(lits_len),
            nodes: nodes as u32,
            bits: bits as u32,
            move_base,
            total_moves: total_moves as u32,
        };
        let false_code = b.false_code();
        for r in rules {
            let start = b.lits.len() as u32;
            for &a in r.pos.iter().chain(&r.neg) {
                let code = match node(a) {
                    Some(n) => n,
                    None => match leaf(a) {
                        LeafOf::Bit(x) => b.nodes + x,
                        LeafOf::Does { role, mv } => {
                            b.nodes + b.bits + b.move_base.get(role as usize).map_or(0, |&m| m) + mv
                        }
                        LeafOf::False => false_code,
                    },
                };
                b.lits.push(code);
            }
            b.rules.push(RuleBody {
                start,
                pos: r.pos.len() as u32,
                len: (r.pos.len() + r.neg.len()) as u32,
                head: node(r.head).unwrap_or(u32::MAX),
                origin: r.origin as u32,
            });
        }
        Some(b)
    }

    /// The code of a literal that is false.
    fn false_code(&self) -> u32 {
        self.nodes + self.bits + self.total_moves
    }

    pub(super) fn rules(&self) -> &[RuleBody] {
        &self.rules
    }

    pub(super) fn rule(&self, r: u32) -> &RuleBody {
        &self.rules[r as usize]
    }

    /// The literals of `r`, each with whether it is negative.
    pub(super) fn body(&self, r: &RuleBody) -> impl Iterator<Item = (Read, bool)> + '_ {
        let lits = &self.lits[r.start as usize..(r.start + r.len) as usize];
        let pos = r.pos;
        lits.iter()
            .enumerate()
            .map(move |(k, &c)| (self.read(c), k as u32 >= pos))
    }

    /// The nodes that the literals of `r` read, each with whether it is negative.
    pub(super) fn nodes_of(&self, r: &RuleBody) -> impl Iterator<Item = (u32, bool)> + '_ {
        let lits = &self.lits[r.start as usize..(r.start + r.len) as usize];
        let (nodes, pos) = (self.nodes, r.pos);
        lits.iter()
            .enumerate()
            .filter(move |&(_, &c)| c < nodes)
            .map(move |(k, &c)| (c, k as u32 >= pos))
    }

    fn read(&self, c: u32) -> Read {
        if c < self.nodes {
            return Read::Node(c);
        }
        let c = c - self.nodes;
        if c < self.bits {
            return Read::Leaf(Lit::pos(Input::Bit(c)));
        }
        let m = c - self.bits;
        if m >= self.total_moves {
            return Read::Leaf(Lit::FALSE);
        }
        let role = self.move_base.partition_point(|&b| b <= m) - 1;
        Read::Leaf(Lit::pos(Input::Does {
            role: role as u32,
            mv: m - self.move_base[role],
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_literal_reads_back_as_its_node_or_input() {
        // Terms 0..3 are nodes 0..3, 10..13 bits 0..3, 20.. moves (role 1 has none), 30 false.
        let rule = |head, pos: &[u32], neg: &[u32]| GroundRule {
            head,
            pos: pos.to_vec(),
            neg: neg.to_vec(),
            origin: 7,
        };
        let rules = [rule(0, &[1, 10, 21], &[30, 2]), rule(3, &[], &[24, 12])];
        let node = |t: TermId| (t < 4).then_some(t);
        let leaf = |t: TermId| match t {
            10..=13 => LeafOf::Bit(t - 10),
            20..=22 => LeafOf::Does {
                role: 0,
                mv: t - 20,
            },
            23..=24 => LeafOf::Does {
                role: 2,
                mv: t - 23,
            },
            _ => LeafOf::False,
        };
        let b = Bodies::new(&rules, (4, 4, &[3, 0, 2]), &node, &leaf).expect("fits");
        let does = |role, mv| Read::Leaf(Lit::pos(Input::Does { role, mv }));
        let first: Vec<(Read, bool)> = b.body(b.rule(0)).collect();
        assert_eq!(
            first,
            [
                (Read::Node(1), false),
                (Read::Leaf(Lit::pos(Input::Bit(0))), false),
                (does(0, 1), false),
                (Read::Leaf(Lit::FALSE), true),
                (Read::Node(2), true),
            ]
        );
        let second: Vec<(Read, bool)> = b.body(b.rule(1)).collect();
        assert_eq!(
            second,
            [
                (does(2, 1), true),
                (Read::Leaf(Lit::pos(Input::Bit(2))), true)
            ]
        );
        assert_eq!(
            b.nodes_of(b.rule(0)).collect::<Vec<_>>(),
            [(1, false), (2, true)]
        );
        assert_eq!(
            (b.rule(1).head, b.rule(1).origin, b.rule(1).len()),
            (3, 7, 2)
        );
        assert!(Bodies::new(&rules, (u32::MAX as usize, 4, &[3]), &node, &leaf).is_none());
    }
}
