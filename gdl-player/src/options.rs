//! The settings of the tree searches and what a search reports.

/// Which tree search plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Search {
    /// [`super::Mcts`]: the flat node store with transpositions, recycling and tree reuse.
    #[default]
    Mcts,
    /// [`super::BaselineMcts`]: the search as it was before the flat node store.
    Baseline,
}

/// How a playout chooses its moves ([`super::Mcts`] only; the baseline plays uniformly).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlayoutPolicy {
    /// Uniformly random legal moves ([`gdl_runtime::Game::random_step`]).
    #[default]
    Uniform,
    /// Move-average sampling: each role's moves keep their mean goal over the iterations
    /// that played them; a playout plays a role's best move, or with a fixed chance a random
    /// one.
    Mast,
    /// N-gram selection (NST): MAST, and beside each move's mean its mean after each move
    /// the previous role played the step before (the reply to it); a playout plays the move
    /// best by the two (the pair's mean counted once it has been played a few times).
    Nst,
    /// Decisive moves: in a turn, the mover plays a move that wins at once when it has one,
    /// else a uniform one.
    Decisive,
    /// [`PlayoutPolicy::Decisive`], and the mover avoids, when it can, a move after which the
    /// next mover wins at once.
    AntiDecisive,
    /// [`PlayoutPolicy::AntiDecisive`] with [`PlayoutPolicy::Nst`]'s order: the mover's
    /// moves are tried from NST's choice on (after a win in one, and skipping moves that give
    /// one).
    AntiDecisiveNst,
    /// Chosen at the start clock by a measurement on the game (`super::Player::start`);
    /// uniform until then.
    Auto,
}

/// What [`super::Mcts`] does when it makes a node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Expansion {
    /// [`Expansion::Decisive`] in the trees of a factored game (there: the tactical checks of
    /// `mcts/factor_checks.rs`) and in a game of three roles or more (not counting `random`),
    /// else [`Expansion::Plain`].
    #[default]
    Auto,
    /// The node's moves and statistics only: its children are seen when iterations reach
    /// them.
    Plain,
    /// In a turn or chance node, the state after each of the mover's moves is computed and a
    /// terminal one recorded as that move's proof (`mcts/expand.rs`), when an iteration first
    /// descends from the node (nodes reached once pay nothing). In the trees of a factored
    /// game, each move of a node's one chooser is marked a win (the game ends with its win) or
    /// a loss (a role choosing in the part next can then win at once), and UCB1 picks among
    /// the wins, else among the moves not marked a loss (`mcts/factor_checks.rs`).
    Decisive,
    /// [`Expansion::Decisive`] when the node is made.
    DecisiveAtOnce,
}

impl Expansion {
    /// The expansion named `text` (`auto`, `plain`, `decisive`, `decisive-at-once`).
    pub fn parse(text: &str) -> Option<Expansion> {
        match text {
            "auto" => Some(Expansion::Auto),
            "plain" => Some(Expansion::Plain),
            "decisive" => Some(Expansion::Decisive),
            "decisive-at-once" => Some(Expansion::DecisiveAtOnce),
            _ => None,
        }
    }

    /// The name [`Expansion::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Expansion::Auto => "auto",
            Expansion::Plain => "plain",
            Expansion::Decisive => "decisive",
            Expansion::DecisiveAtOnce => "decisive-at-once",
        }
    }
}

/// How the roles choose in a node where two or more have a choice ([`super::Mcts`] only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SimultaneousRule {
    /// Decoupled UCT: each role by UCB1 on its own statistics; the root plays the most
    /// visited move.
    #[default]
    Duct,
    /// Regret matching; the root's move is drawn from the average strategy.
    RegretMatching,
    /// Exp3; the root's move is drawn from the average strategy.
    Exp3,
}

impl SimultaneousRule {
    /// The rule named `text` (`duct`, `rm`, `exp3`).
    pub fn parse(text: &str) -> Option<SimultaneousRule> {
        match text {
            "duct" => Some(SimultaneousRule::Duct),
            "rm" => Some(SimultaneousRule::RegretMatching),
            "exp3" => Some(SimultaneousRule::Exp3),
            _ => None,
        }
    }

    /// The name [`SimultaneousRule::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            SimultaneousRule::Duct => "duct",
            SimultaneousRule::RegretMatching => "rm",
            SimultaneousRule::Exp3 => "exp3",
        }
    }
}

/// Whether [`super::Mcts`] searches a game made of independent parts (two boards played side
/// by side) with a tree per part (`mcts/factors.rs`, `mcts/factored.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Factoring {
    /// When the start clock's measurement finds two or more parts in a game of two or more
    /// roles.
    #[default]
    Auto,
    /// One tree over the whole state.
    Off,
}

impl Factoring {
    /// The setting named `text` (`auto`, `off`).
    pub fn parse(text: &str) -> Option<Factoring> {
        match text {
            "auto" => Some(Factoring::Auto),
            "off" => Some(Factoring::Off),
            _ => None,
        }
    }

    /// The name [`Factoring::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Factoring::Auto => "auto",
            Factoring::Off => "off",
        }
    }
}

/// Whether [`super::Mcts`] models the other roles of a game of three roles or more from the
/// moves they play (`mcts/opponents.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpponentModel {
    /// A role whose moves the tree predicts no better than chance is searched as chance.
    #[default]
    Auto,
    /// Every role is searched as a player who takes its best move.
    Off,
}

impl OpponentModel {
    /// The setting named `text` (`auto`, `off`).
    pub fn parse(text: &str) -> Option<OpponentModel> {
        match text {
            "auto" => Some(OpponentModel::Auto),
            "off" => Some(OpponentModel::Off),
            _ => None,
        }
    }

    /// The name [`OpponentModel::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            OpponentModel::Auto => "auto",
            OpponentModel::Off => "off",
        }
    }
}

/// Whether selection in [`super::Mcts`] mixes each move's mean with its all-moves-as-first
/// (AMAF) statistics: the goals of the iterations in which the same role played the same move
/// later, in the tree or the playout (`mcts/amaf.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AmafMode {
    /// Plain UCB1 on each move's own statistics.
    #[default]
    Off,
    /// RAVE: a node's own AMAF statistics.
    Rave,
    /// GRAVE: the AMAF statistics of the closest node on the path (the node itself or an
    /// ancestor) with enough iterations.
    Grave,
    /// GRAVE where a measurement at the start clock finds that the moves are placements,
    /// never legal again once played (`mcts/placement.rs`), else off.
    Auto,
}

impl AmafMode {
    /// The mode named `text` (`off`, `rave`, `grave`, `auto`).
    pub fn parse(text: &str) -> Option<AmafMode> {
        match text {
            "off" => Some(AmafMode::Off),
            "rave" => Some(AmafMode::Rave),
            "grave" => Some(AmafMode::Grave),
            "auto" => Some(AmafMode::Auto),
            _ => None,
        }
    }

    /// The name [`AmafMode::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            AmafMode::Off => "off",
            AmafMode::Rave => "rave",
            AmafMode::Grave => "grave",
            AmafMode::Auto => "auto",
        }
    }
}

/// The AMAF statistics' settings ([`AmafMode`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AmafOptions {
    pub mode: AmafMode,
    /// GRAVE: a node with fewer iterations than this takes the AMAF statistics of its closest
    /// ancestor on the path with this many (or the root's).
    pub reference: u32,
    /// The weight of the AMAF mean against the move's own is `a / (a + m + bias * a * m)`
    /// for `a` AMAF visits and `m` visits: the smaller the bias, the longer AMAF counts. The
    /// default, 0.01, did best of 1e-5, 1e-3, 0.01 and 0.1 on connectFour at equal
    /// iterations (Cazenave's 1e-5 lost clearly there).
    pub bias: f64,
}

impl Default for AmafOptions {
    fn default() -> Self {
        AmafOptions {
            mode: AmafMode::default(),
            reference: 50,
            bias: 0.01,
        }
    }
}

/// Whether [`super::Mcts`] learns an evaluation at the start clock and cuts its playouts
/// short with it (`mcts/heuristic.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeuristicMode {
    /// No evaluation: playouts run to the end.
    Off,
    /// The evaluation learnt is used however well it predicted the held-out samples.
    On,
    /// The evaluation is used only when it predicted the held-out samples well enough (the
    /// default: on englishDraughts and checkers it is chosen and won; on breakthrough and
    /// reversi, where it lost when forced on, and on connectFour, it is not chosen).
    #[default]
    Auto,
}

impl HeuristicMode {
    /// The mode named `text` (`off`, `on`, `auto`).
    pub fn parse(text: &str) -> Option<HeuristicMode> {
        match text {
            "off" => Some(HeuristicMode::Off),
            "on" => Some(HeuristicMode::On),
            "auto" => Some(HeuristicMode::Auto),
            _ => None,
        }
    }

    /// The name [`HeuristicMode::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            HeuristicMode::Off => "off",
            HeuristicMode::On => "on",
            HeuristicMode::Auto => "auto",
        }
    }
}

/// The learnt evaluation's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeuristicOptions {
    pub mode: HeuristicMode,
    /// A playout that has run this many steps without ending is scored by the evaluation.
    pub cutoff: usize,
    /// Whether a role's share of a group of facts (its pieces over all pieces) is a
    /// candidate feature beside the counts.
    pub shares: bool,
}

impl Default for HeuristicOptions {
    fn default() -> Self {
        HeuristicOptions {
            mode: HeuristicMode::default(),
            cutoff: 8,
            shares: true,
        }
    }
}

impl Search {
    /// The search named `text` (`mcts`, `baseline`).
    pub fn parse(text: &str) -> Option<Search> {
        match text {
            "mcts" => Some(Search::Mcts),
            "baseline" => Some(Search::Baseline),
            _ => None,
        }
    }

    /// The name [`Search::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Search::Mcts => "mcts",
            Search::Baseline => "baseline",
        }
    }
}

impl PlayoutPolicy {
    /// The policy named `text` (`uniform`, `mast`, `nst`, `decisive`, `anti-decisive`,
    /// `anti-decisive-nst`, `auto`).
    pub fn parse(text: &str) -> Option<PlayoutPolicy> {
        match text {
            "uniform" => Some(PlayoutPolicy::Uniform),
            "mast" => Some(PlayoutPolicy::Mast),
            "nst" => Some(PlayoutPolicy::Nst),
            "decisive" => Some(PlayoutPolicy::Decisive),
            "anti-decisive" => Some(PlayoutPolicy::AntiDecisive),
            "anti-decisive-nst" => Some(PlayoutPolicy::AntiDecisiveNst),
            "auto" => Some(PlayoutPolicy::Auto),
            _ => None,
        }
    }

    /// The name [`PlayoutPolicy::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            PlayoutPolicy::Uniform => "uniform",
            PlayoutPolicy::Mast => "mast",
            PlayoutPolicy::Nst => "nst",
            PlayoutPolicy::Decisive => "decisive",
            PlayoutPolicy::AntiDecisive => "anti-decisive",
            PlayoutPolicy::AntiDecisiveNst => "anti-decisive-nst",
            PlayoutPolicy::Auto => "auto",
        }
    }
}

/// The UCB1 exploration constant (goals are in 0..1), or how the start clock sets it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Exploration {
    /// This constant.
    Fixed(f64),
    /// Set at the start clock from the mean length of random games, in choices
    /// (`mcts/exploration.rs`): short games get more exploration than long ones (the default:
    /// on connectFour 0.6 won against 0.3, on breakthrough it lost).
    Length,
}

impl Exploration {
    /// The constant [`super::BaselineMcts`] uses for [`Exploration::Length`], and
    /// [`super::Mcts`] before a start clock has measured the game.
    pub const BASELINE: f64 = 0.3;

    /// `auto` ([`Exploration::Length`]) or a constant `>= 0`.
    pub fn parse(text: &str) -> Option<Exploration> {
        match text {
            "auto" => Some(Exploration::Length),
            _ => text
                .parse::<f64>()
                .ok()
                .filter(|c| c.is_finite() && *c >= 0.0)
                .map(Exploration::Fixed),
        }
    }

    /// The constant, or [`Exploration::BASELINE`] for [`Exploration::Length`].
    pub fn constant_or_baseline(self) -> f64 {
        match self {
            Exploration::Fixed(c) => c,
            Exploration::Length => Exploration::BASELINE,
        }
    }
}

impl std::fmt::Display for Exploration {
    /// What [`Exploration::parse`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exploration::Fixed(c) => write!(f, "{c}"),
            Exploration::Length => f.write_str("auto"),
        }
    }
}

/// [`MctsOptions::max_memory`] unless set: 2 GiB.
pub const DEFAULT_MAX_MEMORY: usize = 2 << 30;

/// Settings of [`super::Mcts`] and [`super::BaselineMcts`].
#[derive(Clone, Debug)]
pub struct MctsOptions {
    /// The UCB1 exploration constant, or how the start clock sets it.
    pub exploration: Exploration,
    /// The most nodes the tree holds. [`super::Mcts`] then frees the nodes least recently
    /// visited; [`super::BaselineMcts`] stops growing (iterations still run, from the leaves).
    pub max_nodes: usize,
    /// The most bytes the tree's nodes and move statistics take ([`super::Mcts`], which then
    /// frees the nodes least recently visited, as for `max_nodes`; the trees of a factored
    /// game too).
    pub max_memory: usize,
    /// Iterations per decision at most (`None`: until the deadline).
    pub max_iterations: Option<u64>,
    /// Playouts longer than this are scored 0.5 for every role.
    pub max_playout_steps: usize,
    pub seed: u64,
    /// Which search [`super::ParallelMcts`] runs.
    pub search: Search,
    /// How playouts choose their moves.
    pub playout: PlayoutPolicy,
    /// Decisive and anti-decisive playouts look for wins in the first this many steps of a
    /// playout only, then play uniformly (`None`: in every step).
    pub decisive_steps: Option<usize>,
    /// What is done when a node is made.
    pub expansion: Expansion,
    /// How the roles choose in simultaneous-move nodes.
    pub simultaneous: SimultaneousRule,
    /// In a game of one role, [`super::Mcts`] keeps the line of moves to the best goal any
    /// iteration reached and plays it unless a move is proven as good (else the most visited
    /// move).
    pub best_line: bool,
    /// The evaluation learnt at the start clock.
    pub heuristic: HeuristicOptions,
    /// Whether selection uses AMAF statistics (RAVE, GRAVE).
    pub amaf: AmafOptions,
    /// Whether a game of independent parts gets a tree per part.
    pub factoring: Factoring,
    /// Whether a role seen playing at random is searched as chance (three roles or more).
    pub opponents: OpponentModel,
}

impl Default for MctsOptions {
    fn default() -> Self {
        MctsOptions {
            exploration: Exploration::Length,
            max_nodes: 1_000_000,
            max_memory: DEFAULT_MAX_MEMORY,
            max_iterations: None,
            max_playout_steps: 10_000,
            seed: 1,
            search: Search::default(),
            playout: PlayoutPolicy::default(),
            decisive_steps: None,
            expansion: Expansion::default(),
            simultaneous: SimultaneousRule::default(),
            best_line: true,
            heuristic: HeuristicOptions::default(),
            amaf: AmafOptions::default(),
            factoring: Factoring::default(),
            opponents: OpponentModel::default(),
        }
    }
}

/// What the last search did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchStats {
    pub iterations: u64,
    /// Nodes in the tree after the search.
    pub nodes: usize,
    /// The mean goal (0..1) of the move chosen (exact when proven), for the player's role.
    pub value: f64,
    /// The root was proven: `value` is exact.
    pub proven: bool,
}

impl std::fmt::Display for SearchStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} iterations, {} nodes, value {:.2}{}",
            self.iterations,
            self.nodes,
            self.value,
            if self.proven { " (proven)" } else { "" }
        )
    }
}
