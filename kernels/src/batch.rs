//! Operators of many operands: a [`Batch`] is a list of stages, each a list of moves (a source, an output and a
//! proven [`Program`]). Stages run one after another; the moves of a stage that touch apart byte ranges run in any
//! order and on any threads, so a join of 32 small images splits across the pool as one piece of work, and moves
//! whose ranges conflict run one after another in the order given (a padding's blocks: each block's interior, then
//! its borders read back from it while it is in the caches, the blocks spread over the pool).
//!
//! What the batch proves, in this crate, is what makes running moves at the same time sound: each move's program is
//! a [`Walk`](crate::Walk) (in bounds, its own output never written twice), and two moves of a stage run on
//! different threads at once only when neither writes a byte range of an output that the other writes or reads. The
//! byte ranges are intervals (from the lowest to the highest byte a move touches), so moves whose elements only
//! interleave — the left and right borders of every row — are kept on one thread, one after the other; a move that
//! reads the output it writes runs on one thread (never split). Whether the moves together write each output byte
//! once and read only bytes written before is the operator's business (the facade's planners prove it over their
//! coordinate boxes and test it): breaking it gives a wrong result, never a data race.

use core::ops::Range;

use crate::exec::{ExecOptions, Parallelism, Program, RunError, SendPtr, level, pool};
use crate::params;
use crate::plan::Plan;
use crate::walk::PlanError;

/// Where a move reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Input buffer `i`.
    Input(usize),
    /// Output buffer `k`, as earlier stages left it (a padding's borders copied from its interior).
    Output(usize),
    /// The bytes given (a fill: the plan reads them, usually one element with every input stride 0).
    Value(Vec<u8>),
    /// Nothing: a sequence ([`ElementOp::Sequence`](crate::ElementOp::Sequence)) computes each value from its
    /// index.
    Index,
}

/// One move of a [`Batch`]: `plan` reads `source` and writes output `output`.
#[derive(Clone, Debug)]
pub struct Move {
    /// Where the plan reads.
    pub source: Source,
    /// The output buffer the plan writes.
    pub output: usize,
    /// What it moves.
    pub plan: Plan,
}

/// A proven move.
#[derive(Clone, Debug)]
struct Step {
    source: Source,
    output: usize,
    program: Program,
    /// The output bytes `[lo, hi)` it writes between.
    writes: Range<usize>,
    /// Whether it reads the output it writes, within the bytes it writes: then it never splits.
    alone: bool,
}

/// A stage: its moves and their groups. A group runs in the order of its moves (a small one on one thread, a large
/// one move by move, each split across the pool); groups run in any order.
#[derive(Clone, Debug)]
struct Stage {
    steps: Vec<Step>,
    /// Moves that must run one after another on one thread (their byte ranges conflict), in stage order.
    groups: Vec<Vec<usize>>,
    bytes: usize,
}

/// Moves between many inputs and outputs, proven and planned once, run many times from any thread.
///
/// # Examples
///
/// Two inputs side by side in one output (a join along the last axis of two 2×2 byte matrices):
///
/// ```
/// use strider_kernels::{Batch, Dim, ExecOptions, Move, Plan, Source};
/// let half = |input, out_base| Move {
///     source: Source::Input(input),
///     output: 0,
///     plan: Plan::copy(1, 0, out_base, vec![
///         Dim { extent: 2, in_stride: 2, out_stride: 4 },
///         Dim { extent: 2, in_stride: 1, out_stride: 1 },
///     ]),
/// };
/// let batch = Batch::new(2, 1, vec![vec![half(0, 0), half(1, 2)]]).unwrap();
/// let mut out = [0u8; 8];
/// batch.run(&[&[1, 2, 3, 4], &[5, 6, 7, 8]], &mut [&mut out[..]], &ExecOptions::default()).unwrap();
/// assert_eq!(out, [1, 2, 5, 6, 3, 4, 7, 8]);
/// ```
#[derive(Clone, Debug)]
pub struct Batch {
    inputs: usize,
    outputs: usize,
    stages: Vec<Stage>,
    in_need: Vec<usize>,
    out_need: Vec<usize>,
    /// One stage of one move from input 0 into output 0, the batch's only operands ([`Batch::single`]).
    single: bool,
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// Disjoint sets over `n` moves (the conflict groups of a stage).
struct Sets(Vec<usize>);

impl Sets {
    fn find(&mut self, mut i: usize) -> usize {
        while self.0[i] != i {
            self.0[i] = self.0[self.0[i]];
            i = self.0[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.0[a.max(b)] = a.min(b);
        }
    }

    /// The sets, each in ascending order, ordered by their first member.
    fn groups(&mut self) -> Vec<Vec<usize>> {
        let n = self.0.len();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut slot = vec![usize::MAX; n];
        for i in 0..n {
            let root = self.find(i);
            if slot[root] == usize::MAX {
                slot[root] = groups.len();
                groups.push(Vec::new());
            }
            groups[slot[root]].push(i);
        }
        groups
    }
}

impl Stage {
    fn new(steps: Vec<Step>) -> Stage {
        let n = steps.len();
        let mut sets = Sets((0..n).collect());
        let bytes = steps.iter().fold(0usize, |b, s| b.saturating_add(s.program.bytes()));
        // Writers of one output that overlap: sort by start, sweep with the furthest end so far. Each cluster of
        // them (output, start, end, a member) spans exactly the union of its writers' bytes (each joined before the
        // furthest end so far: no gap), and within an output the clusters are apart and ascending.
        let mut writers: Vec<usize> = (0..n).collect();
        writers.sort_by_key(|&i| (steps[i].output, steps[i].writes.start));
        let mut clusters: Vec<(usize, usize, usize, usize)> = Vec::new();
        for &i in &writers {
            let (k, w) = (steps[i].output, &steps[i].writes);
            match clusters.last_mut() {
                Some(c) if c.0 == k && w.start < c.2 => {
                    sets.union(c.3, i);
                    c.2 = c.2.max(w.end);
                }
                _ => clusters.push((k, w.start, w.end, i)),
            }
        }
        // Readers of an output against its writers: a reader overlapping a writer overlaps its cluster's span, and
        // the clusters it overlaps are consecutive from the first one ending past its first byte.
        // PERF: against every move (quadratic), a padding planned in 256 blocks of 5 moves took 2.4 ms to build,
        // 1.5 ms so.
        for (r, step) in steps.iter().enumerate() {
            if let Source::Output(k) = step.source {
                let reads = step.program.walk().input_range();
                let first = clusters.partition_point(|c| (c.0, c.2) <= (k, reads.start));
                for c in clusters[first..].iter().take_while(|c| c.0 == k && c.1 < reads.end) {
                    if overlaps(&reads, &(c.1..c.2)) {
                        sets.union(r, c.3);
                    }
                }
            }
        }
        let groups = sets.groups();
        Stage { steps, groups, bytes }
    }

    fn group_bytes(&self, group: &[usize]) -> usize {
        group.iter().fold(0usize, |b, &i| b.saturating_add(self.steps[i].program.bytes()))
    }
}

impl Batch {
    /// Proves every move ([`Program::new`]) and groups the moves of each stage.
    ///
    /// # Errors
    ///
    /// As [`Program::new`] for a move's plan; [`PlanError::Inconsistent`] for a source or output index beyond the
    /// counts, a [`Source::Value`] shorter than its plan reads, a [`Source::Index`] without a sequence or a
    /// sequence reading anything else.
    pub fn new(inputs: usize, outputs: usize, stages: Vec<Vec<Move>>) -> Result<Batch, PlanError> {
        let mut in_need = vec![0usize; inputs];
        let mut out_need = vec![0usize; outputs];
        let mut proven = Vec::with_capacity(stages.len());
        for stage in stages {
            let mut steps = Vec::with_capacity(stage.len());
            for m in stage {
                let program = Program::new(&m.plan)?;
                let walk = program.walk();
                if m.output >= outputs || m.plan.op().is_sequence() != (m.source == Source::Index) {
                    return Err(PlanError::Inconsistent);
                }
                let writes = walk.output_range();
                let need = &mut out_need[m.output];
                *need = (*need).max(walk.output_bytes_needed());
                let reads = walk.input_range();
                let alone = match &m.source {
                    Source::Input(i) => {
                        let need = in_need.get_mut(*i).ok_or(PlanError::Inconsistent)?;
                        *need = (*need).max(walk.input_bytes_needed());
                        false
                    }
                    Source::Output(k) => {
                        let need = out_need.get_mut(*k).ok_or(PlanError::Inconsistent)?;
                        *need = (*need).max(walk.input_bytes_needed());
                        *k == m.output && overlaps(&reads, &writes)
                    }
                    Source::Value(bytes) if bytes.len() < walk.input_bytes_needed() => {
                        return Err(PlanError::Inconsistent);
                    }
                    Source::Value(_) | Source::Index => false,
                };
                steps.push(Step { source: m.source, output: m.output, program, writes, alone });
            }
            proven.push(Stage::new(steps));
        }
        let single = matches!((&proven[..], inputs, outputs), ([stage], 1, 1)
            if matches!(&stage.steps[..], [step] if matches!(step.source, Source::Input(0)) && step.output == 0));
        Ok(Batch { inputs, outputs, stages: proven, in_need, out_need, single })
    }

    /// Bytes input `i` must hold (0 for an input no move reads).
    pub fn input_bytes_needed(&self, i: usize) -> usize {
        self.in_need.get(i).copied().unwrap_or(0)
    }

    /// Bytes output `k` must hold.
    pub fn output_bytes_needed(&self, k: usize) -> usize {
        self.out_need.get(k).copied().unwrap_or(0)
    }

    /// Every move's source, output and program, stage by stage.
    pub fn moves(&self) -> impl Iterator<Item = (&Source, usize, &Program)> {
        self.stages.iter().flat_map(|s| s.steps.iter().map(|m| (&m.source, m.output, &m.program)))
    }

    /// The program of a batch that is one move from its one input into its one output (every operator of one input
    /// and one output), for callers that checked the buffers against their tensors and run it straight
    /// ([`Program::run`] checks them against its walk again): `Batch::run`'s operand checks then repeat theirs.
    ///
    /// PERF: a 4-element walk (the spec's 4×4 example) spent 80 of its 400 instructions a call in those checks.
    pub fn single(&self) -> Option<&Program> {
        // (Decided once: operators of one move take this on every call.)
        self.single.then(|| &self.stages[0].steps[0].program)
    }

    /// Runs every stage in order.
    ///
    /// # Errors
    ///
    /// [`RunError::OperandCount`] for another number of buffers than operands, [`RunError::OperandTooSmall`] for a
    /// buffer shorter than its moves address; as [`Program::run`] for the options. Nothing is written then.
    pub fn run(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]], opts: &ExecOptions) -> Result<(), RunError> {
        // (Plain loops: the iterator chains they replace cost a 4-element walk a fifth of its call.)
        if inputs.len() != self.inputs {
            return Err(RunError::OperandCount { operand: "input", expected: self.inputs, actual: inputs.len() });
        }
        if outputs.len() != self.outputs {
            return Err(RunError::OperandCount { operand: "output", expected: self.outputs, actual: outputs.len() });
        }
        for (index, (b, &required)) in inputs.iter().zip(&self.in_need).enumerate() {
            if b.len() < required {
                return Err(RunError::OperandTooSmall { operand: "input", index, required, actual: b.len() });
            }
        }
        for (index, (b, &required)) in outputs.iter().zip(&self.out_need).enumerate() {
            if b.len() < required {
                return Err(RunError::OperandTooSmall { operand: "output", index, required, actual: b.len() });
            }
        }
        if let [stage] = &self.stages[..]
            && let [step] = &stage.steps[..]
        {
            // PERF: one move (every operator of one input and one output): its program's own path, which runs
            // tiny walks without the nest and measures its store kind near the streaming threshold.
            let dst = &mut *outputs[step.output];
            let src: &[u8] = match &step.source {
                Source::Input(i) => inputs[*i],
                Source::Value(bytes) => bytes,
                Source::Index => &[],
                // Its own output as the source: only one buffer exists, so the general path below.
                Source::Output(_) => return self.run_stages(inputs, outputs, opts),
            };
            return step.program.run(src, dst, opts);
        }
        self.run_stages(inputs, outputs, opts)
    }

    /// [`Batch::run`] after the checks, stage by stage.
    fn run_stages(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]], opts: &ExecOptions) -> Result<(), RunError> {
        let level = level(opts)?;
        let pool = pool(opts)?;
        let ins: Vec<SendPtr> = inputs.iter().map(|b| SendPtr(b.as_ptr().cast_mut())).collect();
        let outs: Vec<SendPtr> = outputs.iter_mut().map(|b| SendPtr(b.as_mut_ptr())).collect();
        let buffers = Buffers { ins: &ins, outs: &outs };
        for stage in &self.stages {
            // SAFETY: every buffer holds what its moves address (checked above); inputs are shared borrows, outputs
            // exclusive ones distinct from each other and from the inputs.
            unsafe { self.run_stage(stage, &buffers, level, pool.as_deref(), opts) };
        }
        Ok(())
    }

    /// Runs one stage: on the calling thread when small or sequential; otherwise the large conflict groups one
    /// move at a time, each split across the pool, and the small groups spread over the pool, each on one thread.
    ///
    /// # Safety
    ///
    /// The buffers hold what the moves address; the outputs do not overlap each other or the inputs.
    unsafe fn run_stage(
        &self,
        stage: &Stage,
        buffers: &Buffers<'_>,
        level: crate::arch::Level,
        pool: Option<&rayon::ThreadPool>,
        opts: &ExecOptions,
    ) {
        let grain = match opts.parallelism {
            Parallelism::Sequential => usize::MAX,
            Parallelism::Auto => params::PAR_GRAIN_BYTES,
            Parallelism::Grain(g) => g.max(1),
        };
        let here = |i: usize| {
            let (src, dst) = buffers.of(&stage.steps[i]);
            // SAFETY: the caller's contract; a move runs whole on this thread.
            unsafe { stage.steps[i].program.run_here(src, dst, level, opts) }
        };
        if stage.bytes < grain {
            (0..stage.steps.len()).for_each(here);
            return;
        }
        let threads = pool.map_or_else(crate::env::pool_threads, rayon::ThreadPool::current_num_threads);
        let (mut small, mut small_bytes) = (Vec::new(), 0usize);
        for group in &stage.groups {
            let bytes = stage.group_bytes(group);
            if bytes < grain || threads <= 1 {
                small.push(group);
                small_bytes = small_bytes.saturating_add(bytes);
                continue;
            }
            for &i in group {
                let step = &stage.steps[i];
                if step.alone {
                    here(i);
                } else {
                    let (src, dst) = buffers.of(step);
                    // SAFETY: the caller's contract; no other move runs meanwhile.
                    unsafe { step.program.execute(src, dst, level, pool, opts) };
                }
            }
        }
        if small.len() < 2 || small_bytes < grain || threads <= 1 {
            small.iter().flat_map(|g| g.iter().copied()).for_each(here);
            return;
        }
        // Chunks of consecutive groups of about equal bytes.
        let chunks = threads.saturating_mul(params::CHUNKS_PER_THREAD).clamp(1, small.len());
        let mut starts = Vec::with_capacity(chunks + 1);
        let mut acc = 0usize;
        for (g, group) in small.iter().enumerate() {
            if acc >= small_bytes / chunks * starts.len() && starts.len() < chunks {
                starts.push(g);
            }
            acc = acc.saturating_add(stage.group_bytes(group));
        }
        starts.push(small.len());
        let run = |c: usize| {
            if let (Some(&lo), Some(&hi)) = (starts.get(c), starts.get(c + 1)) {
                small[lo..hi].iter().flat_map(|g| g.iter().copied()).for_each(here);
            }
        };
        // PERF: the caller takes chunks too (see `team`).
        crate::team::split(pool, starts.len().saturating_sub(1), opts.lingers(), &run);
    }
}

/// The raw buffers of a run.
struct Buffers<'a> {
    ins: &'a [SendPtr],
    outs: &'a [SendPtr],
}

// SAFETY: the pointers are only dereferenced by moves through their proven walks, and moves of one stage that touch
// overlapping byte ranges of an output run on one thread (`Stage::groups`).
unsafe impl Sync for Buffers<'_> {}

impl Buffers<'_> {
    /// The source and destination pointers of a move.
    fn of(&self, step: &Step) -> (*const u8, *mut u8) {
        let src = match &step.source {
            Source::Input(i) => self.ins[*i].0.cast_const(),
            Source::Output(k) => self.outs[*k].0.cast_const(),
            Source::Value(bytes) => bytes.as_ptr(),
            Source::Index => core::ptr::null(),
        };
        (src, self.outs[step.output].0)
    }
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
mod tests {
    use super::*;
    use crate::convert::ElemType;
    use crate::plan::{Dim, ElementOp};

    fn row(extent: usize, in_stride: isize, out_stride: isize) -> Dim {
        Dim { extent, in_stride, out_stride }
    }

    /// A join of many small inputs along the first axis: each input is one group, spread over the pool.
    #[test]
    fn joins_split_across_threads_give_the_same_bytes() {
        let n = 64;
        let moves: Vec<Move> = (0..n)
            .map(|i| Move {
                source: Source::Input(i),
                output: 0,
                plan: Plan::copy(4, 0, i * 4096, vec![row(1024, 4, 4)]),
            })
            .collect();
        let batch = Batch::new(n, 1, vec![moves]).unwrap();
        assert_eq!(batch.stages[0].groups.len(), n);
        let inputs: Vec<Vec<u8>> = (0..n).map(|i| (0..4096).map(|b| (b * 7 + i) as u8).collect()).collect();
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let want: Vec<u8> = inputs.concat();
        for opts in [
            ExecOptions::sequential(),
            ExecOptions::default().with_parallelism(Parallelism::Grain(1)),
            ExecOptions::default().with_parallelism(Parallelism::Grain(1)).with_threads(3),
        ] {
            let mut out = vec![0u8; n * 4096];
            batch.run(&refs, &mut [&mut out[..]], &opts).unwrap();
            assert!(out == want, "{opts:?}");
        }
    }

    /// Moves whose elements interleave (the two halves of every row) form one group; a move reading the output it
    /// writes runs alone.
    #[test]
    fn interleaved_moves_group_and_self_reads_run_alone() {
        let half = |base| Move {
            source: Source::Input(0),
            output: 0,
            plan: Plan::copy(1, base, base, vec![row(4, 8, 8), row(4, 1, 1)]),
        };
        let mirror =
            Move { source: Source::Output(0), output: 0, plan: Plan::copy(1, 4, 3, vec![row(4, 8, 8), row(2, 1, -1)]) };
        let batch = Batch::new(1, 1, vec![vec![half(0), half(4)], vec![mirror]]).unwrap();
        assert_eq!(batch.stages[0].groups, vec![vec![0, 1]]);
        assert!(batch.stages[1].steps[0].alone);
        let x: Vec<u8> = (0..32).collect();
        let mut y = [0u8; 32];
        batch.run(&[&x], &mut [&mut y[..]], &ExecOptions::default().with_parallelism(Parallelism::Grain(1))).unwrap();
        // Row r: bytes 4, 5 of the row copied backwards to bytes 3, 2 (over what the first stage wrote there).
        assert_eq!(&y[..8], &[0, 1, 5, 4, 4, 5, 6, 7]);
    }

    /// Within a stage, a move reading what an earlier move of the stage wrote runs after it, on its thread; blocks
    /// of such chains spread over the pool (each block a copy of its input, then a copy of its first half over its
    /// second half).
    #[test]
    fn chains_within_a_stage_run_in_order() {
        let n = 48;
        let mut moves = Vec::new();
        for i in 0..n {
            let base = i * 8192;
            moves.push(Move {
                source: Source::Input(0),
                output: 0,
                plan: Plan::copy(4, base, base, vec![row(2048, 4, 4)]),
            });
            moves.push(Move {
                source: Source::Output(0),
                output: 0,
                plan: Plan::copy(4, base, base + 4096, vec![row(1024, 4, 4)]),
            });
        }
        let batch = Batch::new(1, 1, vec![moves]).unwrap();
        assert_eq!(batch.stages[0].groups.len(), n);
        assert!(batch.stages[0].groups.iter().all(|g| g.len() == 2 && g[0] + 1 == g[1]));
        let x: Vec<u8> = (0..n * 8192).map(|b| (b * 13 + b / 4096) as u8).collect();
        let want: Vec<u8> = x.chunks(8192).flat_map(|c| [&c[..4096], &c[..4096]].concat()).collect();
        for opts in [
            ExecOptions::sequential(),
            ExecOptions::default().with_parallelism(Parallelism::Grain(1)),
            ExecOptions::default().with_parallelism(Parallelism::Grain(64 << 10)).with_threads(3),
            ExecOptions::default().with_parallelism(Parallelism::Grain(64 << 10)).with_threads(7),
        ] {
            let mut out = vec![0u8; n * 8192];
            batch.run(&[&x], &mut [&mut out[..]], &opts).unwrap();
            assert!(out == want, "{opts:?}");
        }
    }

    /// The groups found by sweeping clusters of writers are those of testing every reader against every writer.
    #[test]
    fn groups_match_the_quadratic_test() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        for _ in 0..50 {
            let n = 1 + next(60);
            let moves: Vec<Move> = (0..n)
                .map(|_| {
                    let (len, out_base, in_base) = (1 + next(40), next(400), next(400));
                    let source = if next(2) == 0 { Source::Input(0) } else { Source::Output(next(2)) };
                    Move { source, output: next(2), plan: Plan::copy(1, in_base, out_base, vec![row(len, 1, 1)]) }
                })
                .collect();
            let batch = Batch::new(1, 2, vec![moves]).unwrap();
            let steps = &batch.stages[0].steps;
            let mut sets = Sets((0..n).collect());
            for i in 0..n {
                for j in 0..n {
                    let reads = steps[i].program.walk().input_range();
                    let both_write = i != j && steps[i].output == steps[j].output;
                    if both_write && overlaps(&steps[i].writes, &steps[j].writes) {
                        sets.union(i, j);
                    }
                    if i != j
                        && steps[i].source == Source::Output(steps[j].output)
                        && overlaps(&reads, &steps[j].writes)
                    {
                        sets.union(i, j);
                    }
                }
            }
            assert_eq!(batch.stages[0].groups, sets.groups());
        }
    }

    #[test]
    fn fills_and_sequences_need_no_input() {
        let fill = Move { source: Source::Value(vec![7, 0]), output: 0, plan: Plan::copy(2, 0, 0, vec![row(5, 0, 2)]) };
        let op = ElementOp::Sequence { ty: ElemType::I16, start: (-3i64) as u64, delta: 2 };
        let seq = Move { source: Source::Index, output: 1, plan: Plan::new(op, 0, 0, vec![row(5, 1, 2)]) };
        let batch = Batch::new(0, 2, vec![vec![fill, seq]]).unwrap();
        let (mut a, mut b) = ([0u8; 10], [0u8; 10]);
        batch.run(&[], &mut [&mut a[..], &mut b[..]], &ExecOptions::sequential()).unwrap();
        assert_eq!(a, [7, 0, 7, 0, 7, 0, 7, 0, 7, 0]);
        let b: Vec<i16> = b.chunks(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect();
        assert_eq!(b, [-3, -1, 1, 3, 5]);
    }

    #[test]
    fn bad_batches_and_buffers_are_refused() {
        let copy = |source, output| Move { source, output, plan: Plan::copy(1, 0, 0, vec![row(4, 1, 1)]) };
        let err = |stages| Batch::new(1, 1, stages).unwrap_err();
        assert_eq!(err(vec![vec![copy(Source::Input(1), 0)]]), PlanError::Inconsistent);
        assert_eq!(err(vec![vec![copy(Source::Input(0), 1)]]), PlanError::Inconsistent);
        assert_eq!(err(vec![vec![copy(Source::Value(vec![1]), 0)]]), PlanError::Inconsistent);
        assert_eq!(err(vec![vec![copy(Source::Index, 0)]]), PlanError::Inconsistent);
        let batch = Batch::new(1, 1, vec![vec![copy(Source::Input(0), 0)]]).unwrap();
        let opts = ExecOptions::sequential();
        let mut y = [9u8; 4];
        assert_eq!(
            batch.run(&[], &mut [&mut y[..]], &opts),
            Err(RunError::OperandCount { operand: "input", expected: 1, actual: 0 })
        );
        assert_eq!(
            batch.run(&[&[1, 2, 3]], &mut [&mut y[..]], &opts),
            Err(RunError::OperandTooSmall { operand: "input", index: 0, required: 4, actual: 3 })
        );
        assert_eq!(
            batch.run(&[&[1, 2, 3, 4]], &mut [&mut y[..3]], &opts),
            Err(RunError::OperandTooSmall { operand: "output", index: 0, required: 4, actual: 3 })
        );
        assert_eq!(y, [9; 4]);
    }

    #[test]
    fn only_one_move_from_the_input_into_the_output_is_single() {
        let copy = |source, output| Move { source, output, plan: Plan::copy(1, 0, 0, vec![row(4, 1, 1)]) };
        let one = Batch::new(1, 1, vec![vec![copy(Source::Input(0), 0)]]).unwrap();
        assert!(one.single().is_some_and(|p| std::ptr::eq(p, &one.stages[0].steps[0].program)));
        // Two moves, two stages, a fill, a second input or output: the batch's own path.
        let half =
            |base| Move { source: Source::Input(0), output: 0, plan: Plan::copy(1, base, base, vec![row(2, 1, 1)]) };
        assert!(Batch::new(1, 1, vec![vec![half(0), half(2)]]).unwrap().single().is_none());
        let stages = vec![vec![copy(Source::Input(0), 0)], vec![copy(Source::Output(0), 0)]];
        assert!(Batch::new(1, 1, stages).unwrap().single().is_none());
        let fill = Move { source: Source::Value(vec![1]), output: 0, plan: Plan::copy(1, 0, 0, vec![row(4, 0, 1)]) };
        assert!(Batch::new(0, 1, vec![vec![fill]]).unwrap().single().is_none());
        assert!(Batch::new(2, 1, vec![vec![copy(Source::Input(0), 0)]]).unwrap().single().is_none());
        assert!(Batch::new(1, 2, vec![vec![copy(Source::Input(0), 1)]]).unwrap().single().is_none());
    }
}
