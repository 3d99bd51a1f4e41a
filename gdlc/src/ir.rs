//! The IR of a compiled game: a propositional circuit over the state bits and the moves.
//!
//! - *State bits*: the state facts that can change, numbered in plane order (`layout.rs`: the
//!   facts of one relation grouped by their piece argument, then in coordinate order); facts
//!   that hold in every reachable state are [`Ir::constant_facts`], not bits.
//! - *Moves*: per role, the move texts in byte order; a move is its index there.
//! - *Move sets*: per role, sets of moves; the literal [`Input::MoveIn`] holds when the role
//!   plays a move of the set. Frame axioms such as "a cell keeps its piece unless the move
//!   starts or ends there" ground into one conjunction per move; [`merge_moves`] turns such
//!   disjunctions into one set test.
//! - *Props*: derived propositions in evaluation order, each an or of ands of [`Lit`]s over
//!   constants, state bits, moves (`does`), move sets and earlier props. The props of a recursive
//!   component of the ground dependency graph form a contiguous [`Ir::groups`] range and may
//!   read each other (positively): the least fixpoint of the range is their value.
//! - *Outputs*: `legal` per role and move, `next` per bit, `terminal`, `goal` per role and
//!   value, and GDL-II's `sees` per role and percept (like `next`, read after a joint move).
//!
//! [`lower`] builds the IR from a [`GroundProgram`](crate::ground::GroundProgram); [`crate::optimise`] simplifies it;
//! [`crate::codegen`] turns it into Rust.

mod bodies;
mod layout;
mod lower;
mod scc;
pub mod verify;

pub use lower::{LowerError, lower, lower_taking, lower_with};

use rustc_hash::FxHashMap as HashMap;
use std::fmt;
use std::ops::Range;

use gdl_propnet::{Rule, Step};

/// What a literal reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Input {
    Const(bool),
    /// A state bit.
    Bit(u32),
    /// `(does role move)`: role `role` plays its move number `mv`.
    Does {
        role: u32,
        mv: u32,
    },
    /// A prop.
    Prop(u32),
    /// The role of [`Ir::move_sets`]`[set]` plays one of the set's moves.
    MoveIn(u32),
    /// Output number `o` of the rules evaluated at run time ([`Ir::joins`]).
    Join(u32),
}

/// An input or its negation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lit {
    pub input: Input,
    pub negated: bool,
}

impl Default for Lit {
    fn default() -> Self {
        Lit::FALSE
    }
}

impl Lit {
    pub const TRUE: Lit = Lit {
        input: Input::Const(true),
        negated: false,
    };
    pub const FALSE: Lit = Lit {
        input: Input::Const(false),
        negated: false,
    };

    pub fn pos(input: Input) -> Lit {
        Lit {
            input,
            negated: false,
        }
    }

    /// The constant this literal is, if it is one.
    pub fn constant(self) -> Option<bool> {
        match self.input {
            Input::Const(b) => Some(b != self.negated),
            _ => None,
        }
    }

    /// The literal with the constant folded in (`!true` becomes `false`).
    pub fn folded(self) -> Lit {
        match self.constant() {
            Some(b) => Lit::pos(Input::Const(b)),
            None => self,
        }
    }

    /// The negation.
    pub fn negate(self) -> Lit {
        Lit {
            input: self.input,
            negated: !self.negated,
        }
        .folded()
    }
}

/// A derived proposition: `disjuncts[0] | disjuncts[1] | ...`, each the and of its literals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prop {
    /// The ground atom it stands for, as GDL text (for comments and dumps).
    pub text: String,
    pub disjuncts: Vec<Vec<Lit>>,
    /// The source rules that derive it (indices into `Program::rules`), ascending: generated
    /// code names their lines.
    pub origins: Vec<u32>,
}

/// A set of moves of one role.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MoveSet {
    pub role: u32,
    /// Move numbers, ascending, without duplicates.
    pub moves: Vec<u32>,
}

/// The move sets of an IR, interned.
#[derive(Clone, Debug, Default)]
pub struct MoveSets {
    pub sets: Vec<MoveSet>,
    index: HashMap<MoveSet, u32>,
}

impl MoveSets {
    /// The number of a set, added if new.
    pub fn intern(&mut self, set: MoveSet) -> u32 {
        if let Some(&i) = self.index.get(&set) {
            return i;
        }
        let i = self.sets.len() as u32;
        self.index.insert(set.clone(), i);
        self.sets.push(set);
        i
    }
}

/// Replaces the disjuncts that differ only in one positive `does` literal of one role by one
/// disjunct testing a move set (one move stays a [`Input::Does`]).
pub fn merge_moves(disjuncts: &mut Vec<Vec<Lit>>, sets: &mut MoveSets) {
    let single_does = |c: &[Lit]| {
        let mut found = None;
        for (i, l) in c.iter().enumerate() {
            if let Input::Does { .. } = l.input {
                if l.negated || found.is_some() {
                    return None;
                }
                found = Some(i);
            }
        }
        found
    };
    if disjuncts
        .iter()
        .filter(|c| single_does(c).is_some())
        .count()
        < 2
    {
        return;
    }
    let mut groups: HashMap<(Vec<Lit>, u32), Vec<u32>> = HashMap::default();
    let mut order: Vec<(Vec<Lit>, u32)> = Vec::new();
    let mut out = Vec::with_capacity(disjuncts.len());
    for mut c in std::mem::take(disjuncts) {
        let Some(i) = single_does(&c) else {
            out.push(c);
            continue;
        };
        let Input::Does { role, mv } = c.remove(i).input else {
            continue;
        };
        let key = (c, role);
        match groups.get_mut(&key) {
            Some(ms) => ms.push(mv),
            None => {
                order.push(key.clone());
                groups.insert(key, vec![mv]);
            }
        }
    }
    for key in order {
        let Some(mut moves) = groups.remove(&key) else {
            continue;
        };
        let (mut c, role) = key;
        moves.sort_unstable();
        moves.dedup();
        c.push(if let [mv] = moves[..] {
            Lit::pos(Input::Does { role, mv })
        } else {
            Lit::pos(Input::MoveIn(sets.intern(MoveSet { role, moves })))
        });
        out.push(c);
    }
    *disjuncts = out;
}

/// The rules evaluated at run time (see [`crate::ground::hybrid`]), their tables' rows
/// holding when a literal of the circuit does.
#[derive(Clone, Debug, Default)]
pub struct IrJoins {
    pub tables: Vec<IrTable>,
    /// Per lazy relation, its rules.
    pub lazy: Vec<Vec<gdl_propnet::Rule>>,
    pub joins: Vec<IrJoin>,
}

impl IrJoins {
    pub fn is_empty(&self) -> bool {
        self.joins.is_empty()
    }

    /// The join and the position within it of output `o`.
    pub fn output(&self, o: u32) -> Option<(usize, usize)> {
        let j = self
            .joins
            .partition_point(|j| j.first_output <= o)
            .checked_sub(1)?;
        let k = (o - self.joins[j].first_output) as usize;
        (k < self.joins[j].keys.len()).then_some((j, k))
    }
}

/// The tables that a rule of `steps` reads: its scans' and tests', and those of the lazy
/// relations it calls (transitively; a lazy relation's rules may read dynamic tables).
pub fn tables_read(steps: &[Step], lazy: &[Vec<Rule>]) -> Vec<u32> {
    let mut tables = Vec::new();
    let mut seen = vec![false; lazy.len()];
    let mut todo: Vec<&[Step]> = vec![steps];
    while let Some(steps) = todo.pop() {
        for s in steps {
            match s {
                Step::Scan { table, .. } | Step::Absent { table, .. } => tables.push(*table),
                Step::Call { relation, .. } => {
                    let r = *relation as usize;
                    if r < lazy.len() && !seen[r] {
                        seen[r] = true;
                        todo.extend(lazy[r].iter().map(|rule| rule.steps.as_slice()));
                    }
                }
                Step::Compare { .. } => {}
            }
        }
    }
    tables.sort_unstable();
    tables.dedup();
    tables
}

/// The atoms a body literal of a join can match: rows of variable values, and when each
/// holds.
#[derive(Clone, Debug, Default)]
pub struct IrTable {
    pub width: u32,
    pub rows: Vec<u32>,
    pub holds: Vec<Lit>,
}

/// A rule evaluated at run time.
#[derive(Clone, Debug)]
pub struct IrJoin {
    /// Its head lists its head variables.
    pub rule: gdl_propnet::Rule,
    /// Per output, the values of the head variables.
    pub keys: Vec<Vec<u32>>,
    /// The number of its first output ([`Input::Join`]).
    pub first_output: u32,
}

/// A goal value of a role and when it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalValue {
    /// The value, `None` when the goal term is not an integer (such a goal makes the role's
    /// goal undefined wherever it holds).
    pub value: Option<i32>,
    pub when: Lit,
}

/// GDL-II: a percept of a role and when the role sees it (after the joint move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Percept {
    /// The percept's GDL text, e.g. `(opened 2)`.
    pub text: String,
    pub when: Lit,
}

/// A compiled game.
#[derive(Clone, Debug, Default)]
pub struct Ir {
    pub roles: Vec<String>,
    /// The text of each state bit's fact, e.g. `(cell 1 1 b)`.
    pub bits: Vec<String>,
    /// The bits true in the initial state, ascending.
    pub init: Vec<u32>,
    /// Facts that hold in every reachable state, sorted.
    pub constant_facts: Vec<String>,
    /// The move texts of each role, in byte order.
    pub moves: Vec<Vec<String>>,
    /// The move sets that [`Input::MoveIn`] literals test.
    pub move_sets: MoveSets,
    pub props: Vec<Prop>,
    /// The recursive components: ranges of `props`, ascending and disjoint.
    pub groups: Vec<Range<u32>>,
    /// Per role, per move: when the move is legal.
    pub legal: Vec<Vec<Lit>>,
    /// Per bit: when it holds in the next state.
    pub next: Vec<Lit>,
    pub terminal: Lit,
    /// Per role, its goal values, ascending by value.
    pub goals: Vec<Vec<GoalValue>>,
    /// GDL-II: per role, the percepts it can see, in byte order of their text (the order
    /// `Game::percepts` lists them in). Empty without `sees` rules.
    pub sees: Vec<Vec<Percept>>,
    /// The rules evaluated at run time.
    pub joins: IrJoins,
    /// What the description declares with `base` and `input` (set by the pipeline; the
    /// generated code tells `gdlc validate` which state facts and moves are not declared).
    pub declarations: crate::interp::declared::Declarations,
}

/// Sizes of an IR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IrStats {
    pub bits: usize,
    pub constant_facts: usize,
    pub props: usize,
    /// The number of literals in all props.
    pub literals: usize,
    pub recursive_groups: usize,
    /// The number of moves of all roles.
    pub moves: usize,
    /// The number of move sets, and of moves in them.
    pub move_sets: usize,
    pub move_set_moves: usize,
}

impl Ir {
    pub fn stats(&self) -> IrStats {
        IrStats {
            bits: self.bits.len(),
            constant_facts: self.constant_facts.len(),
            props: self.props.len(),
            literals: self
                .props
                .iter()
                .flat_map(|p| &p.disjuncts)
                .map(Vec::len)
                .sum(),
            recursive_groups: self.groups.len(),
            moves: self.moves.iter().map(Vec::len).sum(),
            move_sets: self.move_sets.sets.len(),
            move_set_moves: self.move_sets.sets.iter().map(|s| s.moves.len()).sum(),
        }
    }

    /// Calls `f` on every output literal, and on every literal the tables of the joins read
    /// (which props must also compute).
    pub fn for_each_output(&self, f: &mut impl FnMut(Lit)) {
        self.legal.iter().flatten().for_each(|&l| f(l));
        self.next.iter().for_each(|&l| f(l));
        f(self.terminal);
        self.goals.iter().flatten().for_each(|g| f(g.when));
        self.sees.iter().flatten().for_each(|p| f(p.when));
        self.joins
            .tables
            .iter()
            .flat_map(|t| &t.holds)
            .for_each(|&l| f(l));
    }

    /// Applies `f` to every output literal and every literal of the joins' tables.
    pub fn map_outputs(&mut self, f: &mut impl FnMut(Lit) -> Lit) {
        self.legal.iter_mut().flatten().for_each(|l| *l = f(*l));
        self.next.iter_mut().for_each(|l| *l = f(*l));
        self.terminal = f(self.terminal);
        self.goals
            .iter_mut()
            .flatten()
            .for_each(|g| g.when = f(g.when));
        self.sees
            .iter_mut()
            .flatten()
            .for_each(|p| p.when = f(p.when));
        self.joins
            .tables
            .iter_mut()
            .flat_map(|t| &mut t.holds)
            .for_each(|l| *l = f(*l));
    }

    /// The size of a prop's code: one plus its number of literals.
    pub fn prop_weight(&self, p: u32) -> usize {
        1 + self.props[p as usize]
            .disjuncts
            .iter()
            .map(Vec::len)
            .sum::<usize>()
    }

    /// The group of each prop, if it is in one.
    pub fn group_of(&self) -> Vec<Option<u32>> {
        let mut g = vec![None; self.props.len()];
        for (i, r) in self.groups.iter().enumerate() {
            for p in r.clone() {
                g[p as usize] = Some(i as u32);
            }
        }
        g
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Const(b) => write!(f, "{b}"),
            Input::Bit(b) => write!(f, "s{b}"),
            Input::Does { role, mv } => write!(f, "r{role}m{mv}"),
            Input::Prop(p) => write!(f, "p{p}"),
            Input::MoveIn(s) => write!(f, "set{s}"),
            Input::Join(o) => write!(f, "join{o}"),
        }
    }
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negated {
            f.write_str("!")?;
        }
        write!(f, "{}", self.input)
    }
}

impl fmt::Display for Ir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.stats();
        writeln!(
            f,
            "; {} bits, {} constant facts, {} props ({} literals, {} recursive groups), {} moves, \
             {} move sets",
            s.bits, s.constant_facts, s.props, s.literals, s.recursive_groups, s.moves, s.move_sets
        )?;
        for (i, r) in self.roles.iter().enumerate() {
            writeln!(f, "role r{i} {r}")?;
        }
        for (i, b) in self.bits.iter().enumerate() {
            let init = if self.init.binary_search(&(i as u32)).is_ok() {
                " init"
            } else {
                ""
            };
            writeln!(f, "bit s{i} {b}{init}")?;
        }
        for c in &self.constant_facts {
            writeln!(f, "constant {c}")?;
        }
        for (r, ms) in self.moves.iter().enumerate() {
            for (i, m) in ms.iter().enumerate() {
                writeln!(f, "move r{r}m{i} {m}")?;
            }
        }
        for (i, s) in self.move_sets.sets.iter().enumerate() {
            write!(f, "set{i} r{}:", s.role)?;
            for m in &s.moves {
                write!(f, " m{m}")?;
            }
            writeln!(f)?;
        }
        let group_of = self.group_of();
        for (i, p) in self.props.iter().enumerate() {
            let g = group_of[i]
                .map(|g| format!(" [group {g}]"))
                .unwrap_or_default();
            write!(f, "p{i} = ")?;
            if p.disjuncts.is_empty() {
                f.write_str("false")?;
            }
            for (k, d) in p.disjuncts.iter().enumerate() {
                if k > 0 {
                    f.write_str(" | ")?;
                }
                if d.is_empty() {
                    f.write_str("true")?;
                }
                for (j, l) in d.iter().enumerate() {
                    if j > 0 {
                        f.write_str(" & ")?;
                    }
                    write!(f, "{l}")?;
                }
            }
            writeln!(f, "    ; {}{g}", p.text)?;
        }
        for (r, ls) in self.legal.iter().enumerate() {
            for (m, l) in ls.iter().enumerate() {
                writeln!(f, "legal r{r}m{m} = {l}")?;
            }
        }
        for (b, l) in self.next.iter().enumerate() {
            writeln!(f, "next s{b} = {l}")?;
        }
        writeln!(f, "terminal = {}", self.terminal)?;
        for (r, gs) in self.goals.iter().enumerate() {
            for g in gs {
                let v = g.value.map_or("?".to_string(), |v| v.to_string());
                writeln!(f, "goal r{r} {v} = {}", g.when)?;
            }
        }
        for (r, ps) in self.sees.iter().enumerate() {
            for p in ps {
                writeln!(f, "sees r{r} {} = {}", p.text, p.when)?;
            }
        }
        Ok(())
    }
}
