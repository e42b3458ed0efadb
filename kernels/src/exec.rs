//! Where a walk runs: a [`Program`] (a proven walk and its strategy) is split into chunks (or not), each chunk is
//! dispatched onto the instruction-set level once, and the generated loop nest walks it with the type-erased row
//! kernel.

use core::fmt;

use std::time::Instant;

use crate::arch::{Arch, Isa, Job, Level};
use crate::measure::{Pick, StoreProbe};
use crate::nest::nest;
use crate::params;
use crate::plan::{Dim, ElementOp, Plan};
use crate::rows::{Rows, with_rows};
use crate::strategy::{RowKind, StoreChoice, Strategy};
use crate::walk::{PlanError, Walk};

/// Whether a program may use more than the calling thread.
///
/// Threads come from rayon's current pool: callers bound them with `rayon::ThreadPool::install` or
/// `RAYON_NUM_THREADS`. The calling thread works on the split too, and takes over any part no pool thread has
/// started yet. A pool thread that worked on a split keeps polling its pool afterwards for up to four times its
/// share's time (100 µs to 1 ms, yielding the CPU between polls to any other runnable thread), so that a next call
/// soon after finds it awake instead of paying its wake-up.
///
/// # Examples
///
/// ```
/// use strider::{ExecOptions, Parallelism};
/// assert_eq!(ExecOptions::default().parallelism, Parallelism::Auto); // split from 1 MiB of output
/// let pinned = ExecOptions::default().with_parallelism(Parallelism::Sequential);
/// let eager = ExecOptions::default().with_parallelism(Parallelism::Grain(256 << 10));
/// # let _ = (pinned, eager);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Parallelism {
    /// Split across the current rayon pool when the output is large enough to repay the hand-off (1 MiB of output
    /// or more); otherwise run on the calling thread.
    #[default]
    Auto,
    /// Always run on the calling thread, never touching the pool (lowest latency for small operators).
    Sequential,
    /// Split across the current pool whenever the output has at least this many bytes, into pieces of at least
    /// this many bytes where possible (for tuning, and for tests that exercise splits on small tensors).
    Grain(usize),
}

/// How a program runs: threads, instruction set and store kind.
///
/// The default splits large outputs across rayon's current pool, uses the best instruction set of this CPU, and
/// chooses non-temporal stores from the program's footprint.
///
/// # Examples
///
/// ```
/// use strider::{DataType, ExecOptions, Isa, Parallelism, Slice1, TensorDesc};
/// let t = TensorDesc::new(DataType::Float32, &[4, 1000])?;
/// let op = Slice1::new(&t, &t, &[0, 0], &[4, 1000], &[1, -1])?;
/// let (x, mut y) = (vec![0u8; 16000], vec![0u8; 16000]);
///
/// // On the calling thread only, with the portable code (e.g. to compare levels).
/// let opts = ExecOptions::sequential().with_isa(Isa::Scalar);
/// assert_eq!(opts.parallelism, Parallelism::Sequential);
/// op.execute_with(&x, &mut y, &opts)?;
///
/// // Split across rayon's current pool from 64 KiB of output, regular stores.
/// let opts = ExecOptions::default().with_parallelism(Parallelism::Grain(64 << 10)).with_streaming(false);
/// op.execute_with(&x, &mut y, &opts)?;
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ExecOptions {
    /// Whether the work may be split across rayon's current pool.
    pub parallelism: Parallelism,
    /// A forced instruction set (`None`: the best available).
    pub isa: Option<Isa>,
    /// Force non-temporal stores on or off (`None`: on when the bytes the walk touches — its output plus the input
    /// it actually reads — reach 1.5× the share of the last-level cache the threads the run is split across can
    /// count on (at most the whole cache), and rows (a transpose's blocks) are long enough; see
    /// [`CacheSizes::stream_threshold_for`](crate::CacheSizes::stream_threshold_for); short copied rows, and short
    /// gathered rows of whole lines on a line-aligned output, from 2/3 of that). From that threshold up to twice
    /// it (not for transposes), where
    /// which kind wins depends on what else uses the cache at the time, a program times its own calls with both
    /// kinds and keeps the faster: its first calls use the rule's kind, and every 256 calls it probes both again.
    /// Streaming suits outputs that are not read again soon; turn it off when the next step consumes the output
    /// right away.
    pub streaming: Option<bool>,
    /// Split across a kept pool of this many threads (1 to [`MAX_THREADS`]) instead of rayon's current pool. The
    /// pool is entered only when the run splits, so small outputs pay no thread hand-off.
    pub threads: Option<usize>,
    /// Whether pool threads that ran part of a split call keep polling their pool for a while afterwards (4× the
    /// time they worked, within 0.1–1 ms, yielding the CPU to any other runnable thread), so that the next call
    /// finds them awake instead of paying their wake-up (tens of µs on a VM). `None`: the `STRIDER_LINGER`
    /// environment variable (`0` turns it off), else on. Turn it off where many processes each run their own pool
    /// (the workers of a data loader) and the spinning would take CPU time another process needs.
    pub linger: Option<bool>,
    /// Whether a program whose footprint is near the streaming threshold may time its own calls to choose its
    /// store kind (see [`ExecOptions::streaming`]). Off, such a program keeps the rule's kind, so that its choice
    /// never depends on timing. `None`: the `STRIDER_TIMED_STORES` environment variable (`0` turns it off), else
    /// on. A forced `streaming` is never timed.
    pub timed_stores: Option<bool>,
}

pub use crate::params::MAX_THREADS;

/// The kept rayon pool of `threads` threads: built on first use and kept for the life of the process, so that
/// asking again for the same count pays no start-up.
///
/// # Errors
///
/// [`RunError::InvalidThreadCount`] for 0 or more than [`MAX_THREADS`]; [`RunError::ThreadPool`] when the
/// operating system refuses to start the threads.
pub fn thread_pool(threads: usize) -> Result<std::sync::Arc<rayon::ThreadPool>, RunError> {
    use std::sync::{Arc, Mutex};
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    if threads == 0 || threads > MAX_THREADS {
        return Err(RunError::InvalidThreadCount(threads));
    }
    // A panic while the lock was held cannot leave the list inconsistent (a push is the only change).
    let mut pools = POOLS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(Arc::clone(pool));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("strider-{i}"))
        .build()
        .map_err(|e| RunError::ThreadPool(format!("could not start a pool of {threads} threads: {e}")))?;
    let pool = Arc::new(pool);
    pools.push((threads, Arc::clone(&pool)));
    Ok(pool)
}

impl ExecOptions {
    /// Run on the calling thread only.
    pub fn sequential() -> Self {
        ExecOptions { parallelism: Parallelism::Sequential, ..Self::default() }
    }

    /// Force an instruction set.
    pub fn with_isa(self, isa: Isa) -> Self {
        ExecOptions { isa: Some(isa), ..self }
    }

    /// Choose the parallelism.
    pub fn with_parallelism(self, parallelism: Parallelism) -> Self {
        ExecOptions { parallelism, ..self }
    }

    /// Force non-temporal stores on or off.
    pub fn with_streaming(self, streaming: bool) -> Self {
        ExecOptions { streaming: Some(streaming), ..self }
    }

    /// Split large outputs across a kept pool of `threads` threads (see [`ExecOptions::threads`]).
    pub fn with_threads(self, threads: usize) -> Self {
        ExecOptions { threads: Some(threads), ..self }
    }

    /// These options with lingering helper threads on or off (see [`ExecOptions::linger`]).
    pub fn with_linger(self, linger: bool) -> Self {
        ExecOptions { linger: Some(linger), ..self }
    }

    /// These options with timed store choices on or off (see [`ExecOptions::timed_stores`]).
    pub fn with_timed_stores(self, timed: bool) -> Self {
        ExecOptions { timed_stores: Some(timed), ..self }
    }

    /// Whether split calls' helpers linger with these options: [`ExecOptions::linger`], else the `STRIDER_LINGER`
    /// environment variable, else on.
    pub fn lingers(&self) -> bool {
        self.linger.unwrap_or_else(crate::env::linger)
    }

    /// Whether programs near the streaming threshold time their store kinds with these options:
    /// [`ExecOptions::timed_stores`], else the `STRIDER_TIMED_STORES` environment variable, else on.
    pub fn times_stores(&self) -> bool {
        self.timed_stores.unwrap_or_else(crate::env::timed_stores)
    }
}

/// Why [`Program::run`] refused to run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunError {
    /// A buffer is shorter than the bytes the walk addresses.
    BufferTooSmall {
        /// `"input"` or `"output"`.
        operand: &'static str,
        /// Bytes the walk addresses.
        required: usize,
        /// Bytes the buffer holds.
        actual: usize,
    },
    /// The requested instruction set is not available on this CPU.
    IsaUnavailable(Isa),
    /// [`Program::run_in_place`] on a walk whose input and output do not address the same bytes element for
    /// element.
    NotInPlace,
    /// [`ExecOptions::threads`] is 0 or more than [`MAX_THREADS`].
    InvalidThreadCount(usize),
    /// The threads of a pool could not be started.
    ThreadPool(String),
    /// A [`Batch`](crate::Batch) was given another number of input or output buffers than it has operands.
    OperandCount {
        /// `"input"` or `"output"`.
        operand: &'static str,
        /// Buffers the batch takes.
        expected: usize,
        /// Buffers given.
        actual: usize,
    },
    /// A buffer of a [`Batch`](crate::Batch) is shorter than the bytes its moves address.
    OperandTooSmall {
        /// `"input"` or `"output"`.
        operand: &'static str,
        /// Which input or output.
        index: usize,
        /// Bytes the moves address.
        required: usize,
        /// Bytes the buffer holds.
        actual: usize,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::BufferTooSmall { operand, required, actual } => {
                write!(f, "the {operand} buffer holds {actual} bytes but the walk addresses {required}")
            }
            RunError::IsaUnavailable(isa) => write!(f, "instruction set {isa} is not available on this CPU"),
            RunError::NotInPlace => {
                f.write_str("input and output do not address the same elements in the same order; cannot run in place")
            }
            RunError::InvalidThreadCount(n) => {
                write!(f, "{n} threads asked for; a thread count must be 1 to {MAX_THREADS}")
            }
            RunError::ThreadPool(detail) => f.write_str(detail),
            RunError::OperandCount { operand, expected, actual } => {
                write!(f, "{actual} {operand} buffers given; the operator has {expected}")
            }
            RunError::OperandTooSmall { operand, index, required, actual } => {
                write!(f, "{operand} buffer {index} holds {actual} bytes but the operator addresses {required}")
            }
        }
    }
}

impl std::error::Error for RunError {}

/// A plan ready to run: its [`Walk`] (the proof) and its strategy (the kernels). Construct once, run many times
/// from any thread.
///
/// # Examples
///
/// ```
/// use strider_kernels::{Dim, ExecOptions, Plan, Program, RowKind};
///
/// // Reverse 5 four-byte elements: input stride -4 bytes starting at the last element.
/// let plan = Plan::copy(4, 16, 0, vec![Dim { extent: 5, in_stride: -4, out_stride: 4 }]);
/// let program = Program::new(&plan).unwrap();
/// assert_eq!(program.kind(), RowKind::Reverse);
/// let src: Vec<u8> = (0..20).collect();
/// let mut dst = vec![0u8; 20];
/// program.run(&src, &mut dst, &ExecOptions::sequential()).unwrap();
/// assert_eq!(&dst[..8], &[16, 17, 18, 19, 12, 13, 14, 15]);
/// ```
#[derive(Clone, Debug)]
pub struct Program {
    walk: Walk,
    strategy: Strategy,
    /// Times of its calls near the streaming threshold, where the store kind is measured (`measure`).
    probe: StoreProbe,
    /// The whole walk element by element when it is that small ([`Strategy::tiny`]).
    tiny: Option<Tiny>,
}

impl Program {
    /// Proves `plan` ([`Walk::new`]) and chooses its kernels.
    ///
    /// # Errors
    ///
    /// As [`Walk::new`].
    pub fn new(plan: &Plan) -> Result<Program, PlanError> {
        let walk = Walk::new(plan)?;
        let strategy = Strategy::choose(&walk)?;
        // Short rows of a plain kind (not a transpose, interleave or channel swap, which fold a dimension of their
        // own): a table of whole rows when one dimension cut in two makes it fit.
        let plain = matches!(
            strategy.kind(),
            RowKind::Copy | RowKind::Reverse | RowKind::Broadcast | RowKind::Gather { .. } | RowKind::Strided
        );
        if plain && let Some(split) = split_for_table(&walk) {
            let walk = Walk::new(&split)?;
            let strategy = Strategy::choose(&walk)?;
            if matches!(strategy.kind(), RowKind::Table { .. }) {
                return Ok(Program::with(walk, strategy));
            }
        }
        Ok(Program::with(walk, strategy))
    }

    fn with(walk: Walk, strategy: Strategy) -> Program {
        let tiny = strategy.tiny().and_then(|table| Tiny::new(&walk, table));
        Program { walk, strategy, probe: StoreProbe::default(), tiny }
    }

    /// The proven walk.
    pub fn walk(&self) -> &Walk {
        &self.walk
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        self.walk.plan()
    }

    /// The row kernel chosen for the innermost dimension.
    pub fn kind(&self) -> RowKind {
        self.strategy.kind()
    }

    /// Whether non-temporal stores are used by default on one thread, into an output buffer that starts on a cache
    /// line (the footprint leaves the caches; transposes into rows that share L1 sets from half of it; rows shorter
    /// than 4 KiB from 2/3 of it when copied, and when gathered only if every row is whole lines, which depends on
    /// where the buffer is). Runs split across
    /// threads stream from a larger footprint
    /// ([`CacheSizes::stream_threshold_for`](crate::CacheSizes::stream_threshold_for)). This is the rule's kind:
    /// near the threshold later calls measure both kinds ([`ExecOptions::streaming`]).
    pub fn streams_by_default(&self) -> bool {
        self.strategy.stream(1, self.walk.plan().out_base())
    }

    /// Moves `src` into `dst` as planned. Bytes of `dst` that the plan does not address are not written. A
    /// sequence ([`ElementOp::Sequence`]) reads nothing: `src` may be empty.
    ///
    /// # Errors
    ///
    /// [`RunError::BufferTooSmall`] when a buffer is shorter than [`Walk::input_bytes_needed`] or
    /// [`Walk::output_bytes_needed`]; [`RunError::IsaUnavailable`] when `opts` forces an instruction set this CPU
    /// lacks. Nothing is written then.
    pub fn run(&self, src: &[u8], dst: &mut [u8], opts: &ExecOptions) -> Result<(), RunError> {
        let w = &self.walk;
        let sequence = w.plan().op().is_sequence();
        if src.len() < w.input_bytes_needed() && !sequence {
            return Err(RunError::BufferTooSmall {
                operand: "input",
                required: w.input_bytes_needed(),
                actual: src.len(),
            });
        }
        if dst.len() < w.output_bytes_needed() {
            return Err(RunError::BufferTooSmall {
                operand: "output",
                required: w.output_bytes_needed(),
                actual: dst.len(),
            });
        }
        let level = level(opts)?;
        let pool = pool(opts)?;
        if let Some(tiny) = &self.tiny {
            // PERF: a whole walk of at most TINY_MAX elements (see there).
            return tiny.run(self.walk.plan().op(), src, dst);
        }
        // A sequence's input addresses are its indices, counted from a null base and never read.
        let src = if sequence { core::ptr::null() } else { src.as_ptr() };
        // SAFETY: `src` and `dst` are distinct buffers (a shared and an exclusive borrow) at least as long as the
        // walk needs, or `src` is a sequence's base of indices.
        unsafe { self.execute(src, dst.as_mut_ptr(), level, pool.as_deref(), opts) };
        Ok(())
    }

    /// Runs the program with `buf` as both input and output, for walks whose input and output address the same
    /// bytes element for element ([`Walk::is_in_place`]): each element is read before it is rewritten. A plain
    /// copy then has nothing to do.
    ///
    /// # Errors
    ///
    /// [`RunError::NotInPlace`] for other walks; otherwise as [`Program::run`].
    pub fn run_in_place(&self, buf: &mut [u8], opts: &ExecOptions) -> Result<(), RunError> {
        let w = &self.walk;
        if !w.is_in_place() {
            return Err(RunError::NotInPlace);
        }
        let need = w.output_bytes_needed().max(w.input_bytes_needed());
        if buf.len() < need {
            return Err(RunError::BufferTooSmall { operand: "output", required: need, actual: buf.len() });
        }
        let level = level(opts)?;
        let pool = pool(opts)?;
        if self.walk.plan().op().is_copy() {
            return Ok(());
        }
        let p = buf.as_mut_ptr();
        // SAFETY: the walk reads and writes exactly the same elements (is_in_place), and every converting kernel
        // reads an element (or the whole staged run holding it) before writing it; the buffer is long enough.
        unsafe { self.execute(p, p, level, pool.as_deref(), opts) };
        Ok(())
    }

    /// Runs the program over the raw operands.
    ///
    /// # Safety
    ///
    /// `src` has `input_bytes_needed` readable bytes and `dst` `output_bytes_needed` writable bytes, either distinct
    /// or — for an in-place walk with a converting element operation — the same buffer.
    pub(crate) unsafe fn execute(
        &self,
        src: *const u8,
        dst: *mut u8,
        level: Level,
        pool: Option<&rayon::ThreadPool>,
        opts: &ExecOptions,
    ) {
        let g = self.strategy.geometry();
        let threads = || pool.map_or_else(crate::env::pool_threads, rayon::ThreadPool::current_num_threads);
        let sched =
            schedule(g.rows(), g.row().extent, self.walk.bytes_written(), self.kind(), opts.parallelism, threads);
        let out = (dst as usize).wrapping_add(self.walk.plan().out_base());
        let split = sched.chunks > 1;
        // A forced kind is the only choice; otherwise the strategy says whether to measure.
        let choice = opts.streaming.map_or_else(|| self.strategy.store_choice(sched.chunks, out), StoreChoice::Rule);
        // (Both switches are read here, split or not, so that a bad environment value is reported on any machine.)
        let (timing, lingers) = (opts.times_stores(), opts.lingers());
        let pick = match choice {
            StoreChoice::Rule(stream) => Pick { stream, timed: false },
            StoreChoice::Measured { rule } if !timing => Pick { stream: rule, timed: false },
            StoreChoice::Measured { rule } => self.probe.pick(split, rule),
        };
        let stream = pick.stream;
        let started = pick.timed.then(Instant::now);
        let units = g.rows() * sched.pieces;
        let chunk = move |c: usize, src: SendPtr, dst: SendPtr| Chunk {
            program: self,
            src: src.0.cast_const(),
            dst: dst.0,
            units: (units * c / sched.chunks, units * (c + 1) / sched.chunks),
            pieces: sched.pieces,
            stream,
        };
        let (s, d) = (SendPtr(src.cast_mut()), SendPtr(dst));
        if split {
            // PERF: the caller works on chunks itself, whether it is a pool thread or not (a C or Python thread, a
            // plain `main`): handing all of them over and sleeping costs a second wake-up (~10 µs on the project's
            // VM) and left two threads doing what one pool thread does: a 3 MiB crop took 86 µs at "2 threads" from
            // Python against 60 µs at one. How the chunks are shared: `team`.
            crate::team::split(pool, sched.chunks, lingers, &|c| level.dispatch(chunk(c, s, d)));
        } else {
            level.dispatch(chunk(0, s, d));
        }
        if let Some(started) = started {
            self.probe.record(split, pick, started.elapsed());
        }
    }
}

impl Program {
    /// Runs the whole program on the calling thread at `level`, with the store kind of `opts` or else the rule's
    /// for one thread (no measuring: a part of a larger operator).
    ///
    /// # Safety
    ///
    /// As [`Program::execute`].
    pub(crate) unsafe fn run_here(&self, src: *const u8, dst: *mut u8, level: Level, opts: &ExecOptions) {
        let out = (dst as usize).wrapping_add(self.walk.plan().out_base());
        let stream = opts.streaming.unwrap_or_else(|| self.strategy.stream(1, out));
        let rows = self.strategy.geometry().rows();
        let chunk = Chunk { program: self, src, dst, units: (0, rows), pieces: 1, stream };
        level.dispatch(chunk);
    }

    /// Bytes the program writes (for splitting operators of many programs).
    pub(crate) fn bytes(&self) -> usize {
        self.walk.bytes_written()
    }
}

/// The plan of `walk` with one dimension cut in two so that short rows gather into table rows: when the rows are
/// shorter than [`params::TABLE_ROW_BYTES`] and the next outer dimension is too long to go into a table of
/// [`params::TABLE_MAX`] elements whole, it becomes `extent / part` rows of `part` (the largest divisor that fits).
/// The same elements in the same order, so the walk is proven again as it is. `None` when nothing is to gain (no
/// such divisor, or parameters, which would have to be cut too).
///
/// PERF: one thread, the reflect pad's left and right borders of f32 64×262 rows (3 elements each): 16768 calls
/// of a 3-element reversed row each, ~15 ns per row, against 262 table rows of 64 rows.
fn split_for_table(walk: &Walk) -> Option<Plan> {
    let plan = walk.plan();
    let dims = plan.dims();
    let last = dims.len().checked_sub(1)?;
    let row = dims[last];
    if last == 0 || plan.params().is_some() || row.extent.saturating_mul(plan.out_width()) >= params::TABLE_ROW_BYTES {
        return None;
    }
    // The innermost dimensions that fit the table whole, then the one that does not.
    let mut len = row.extent;
    let mut k = last;
    while k > 0 {
        let next = len.saturating_mul(dims[k - 1].extent);
        if next > params::TABLE_MAX {
            break;
        }
        len = next;
        k -= 1;
    }
    let outer = k.checked_sub(1)?;
    let d = dims[outer];
    let most = params::TABLE_MAX / len;
    let part = (2..=most.min(d.extent / 2)).rev().find(|&p| d.extent.is_multiple_of(p))?;
    let mut split = dims.to_vec();
    let rows = Dim {
        extent: d.extent / part,
        in_stride: d.in_stride.checked_mul(part as isize)?,
        out_stride: d.out_stride.checked_mul(part as isize)?,
    };
    split[outer] = Dim { extent: part, ..d };
    split.insert(outer, rows);
    (split.len() <= crate::plan::MAX_RANK).then(|| Plan::new(*plan.op(), plan.in_base(), plan.out_base(), split))
}

/// A whole walk of at most [`params::TINY_MAX`] elements ([`Strategy::tiny`]): the byte offsets of each element in
/// the input and the output buffer.
///
/// PERF: the spec's 4×4 example (4 elements) took 178 instructions a call in [`Program::run`] with the offsets
/// relative to the bases, each element copy a bounds-checked slice (40 of them the checks' arithmetic) and the
/// operation matched per call; 95 with these.
#[derive(Clone, Debug)]
struct Tiny {
    /// (input, output) byte offsets, from the start of the buffers.
    pairs: Box<[(usize, usize)]>,
    /// The least input and output buffer lengths that hold every element.
    ends: (usize, usize),
    /// The element width of a copy, 0 for other operations (decided once, not on every call).
    copy: usize,
}

impl Tiny {
    /// The table of `walk` with its bases added (`None` if an offset overflows, never expected of a proven walk).
    fn new(walk: &Walk, table: &crate::walk::Table) -> Option<Tiny> {
        let plan = walk.plan();
        let (iw, ow) = (plan.op().in_width(), plan.op().out_width());
        let mut ends = (0, 0);
        let pairs = table.pairs().iter().map(|&(i, o)| {
            let (i, o) = (plan.in_base().checked_add_signed(i)?, plan.out_base().checked_add_signed(o)?);
            ends = (ends.0.max(i.checked_add(iw)?), ends.1.max(o.checked_add(ow)?));
            Some((i, o))
        });
        let pairs = pairs.collect::<Option<_>>()?;
        Some(Tiny { pairs, ends, copy: if plan.op().is_copy() { iw } else { 0 } })
    }

    /// Moves the elements by `op` (the walk's), from `src` into `dst`: copies of 1, 2, 4 and 8 bytes without a
    /// bounds check each, once both buffers are known to hold every element.
    fn run(&self, op: &ElementOp, src: &[u8], dst: &mut [u8]) -> Result<(), RunError> {
        if src.len() < self.ends.0 || dst.len() < self.ends.1 {
            // (Never after `Program::run`'s checks: the walk's elements lie inside the bytes it needs.)
            let (operand, required, actual) = if src.len() < self.ends.0 {
                ("input", self.ends.0, src.len())
            } else {
                ("output", self.ends.1, dst.len())
            };
            return Err(RunError::BufferTooSmall { operand, required, actual });
        }
        if self.copy == 0 {
            let (iw, ow) = (op.in_width(), op.out_width());
            for &(i, o) in &self.pairs {
                op.apply_one(&src[i..i + iw], &mut dst[o..o + ow]);
            }
            return Ok(());
        }
        /// # Safety
        ///
        /// `i + N ≤ src.len()` and `o + N ≤ dst.len()` for every pair `(i, o)`.
        unsafe fn copies<const N: usize>(pairs: &[(usize, usize)], src: &[u8], dst: &mut [u8]) -> bool {
            let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
            for &(i, o) in pairs {
                // SAFETY: in bounds by the contract; `src` and `dst` are distinct borrows.
                unsafe { core::ptr::copy_nonoverlapping(s.add(i), d.add(o), N) }
            }
            true
        }
        // SAFETY: (each call) every pair's element ends by `self.ends` (`Tiny::new`), which both buffers hold
        // (checked above).
        let fixed = unsafe {
            match self.copy {
                1 => copies::<1>(&self.pairs, src, dst),
                2 => copies::<2>(&self.pairs, src, dst),
                4 => copies::<4>(&self.pairs, src, dst),
                8 => copies::<8>(&self.pairs, src, dst),
                _ => false,
            }
        };
        if !fixed {
            let w = self.copy;
            for &(i, o) in &self.pairs {
                dst[o..o + w].copy_from_slice(&src[i..i + w]);
            }
        }
        Ok(())
    }
}

/// The kept pool `opts` asks for.
pub(crate) fn pool(opts: &ExecOptions) -> Result<Option<std::sync::Arc<rayon::ThreadPool>>, RunError> {
    opts.threads.map(thread_pool).transpose()
}

pub(crate) fn level(opts: &ExecOptions) -> Result<Level, RunError> {
    match opts.isa {
        None => Ok(crate::arch::best()),
        Some(isa) => Level::of(isa).ok_or(RunError::IsaUnavailable(isa)),
    }
}

/// The threads a run with `opts` may use: 1 for sequential options, else those of `opts.threads`' pool or of
/// rayon's current one.
///
/// # Errors
///
/// As [`thread_pool`] for `opts.threads`.
pub fn threads_for(opts: &ExecOptions) -> Result<usize, RunError> {
    Ok(match opts.parallelism {
        Parallelism::Sequential => 1,
        _ => pool(opts)?.as_deref().map_or_else(crate::env::pool_threads, rayon::ThreadPool::current_num_threads),
    })
}

/// Runs `run(j)` once for every job `j < jobs` — independent pieces of work, each run on one thread, taken in order
/// as threads free up — on the threads `opts` allows (rayon's current pool, or a pool of `opts.threads`); in order
/// on the calling thread for sequential options or a single job. For many small operators at once, such as the
/// images of a batch of different sizes, where splitting each one would cost more than it gains.
///
/// # Errors
///
/// [`RunError::IsaUnavailable`], [`RunError::InvalidThreadCount`] or [`RunError::ThreadPool`] for options this
/// machine cannot honour; no job has run then.
///
/// # Examples
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use strider_kernels::{ExecOptions, spread};
/// let sum = AtomicUsize::new(0);
/// spread(&ExecOptions::default().with_threads(2), 10, &|j| {
///     sum.fetch_add(j, Ordering::Relaxed);
/// })?;
/// assert_eq!(sum.into_inner(), 45);
/// # Ok::<(), strider_kernels::RunError>(())
/// ```
pub fn spread(opts: &ExecOptions, jobs: usize, run: &(dyn Fn(usize) + Sync)) -> Result<(), RunError> {
    level(opts)?;
    let pool = pool(opts)?;
    let threads = threads_for(opts)?.min(jobs);
    if threads <= 1 {
        (0..jobs).for_each(run);
        return Ok(());
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    crate::team::split(pool.as_deref(), threads, opts.lingers(), &|_| {
        loop {
            let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if j >= jobs {
                break;
            }
            run(j);
        }
    });
    Ok(())
}

/// How many chunks `units` pieces of work of `bytes` bytes split into: the threads of `pool` (or the caller's) when
/// `opts` allows a split and the work reaches its grain, at most one unit each.
pub(crate) fn chunks_for(opts: &ExecOptions, pool: Option<&rayon::ThreadPool>, bytes: usize, units: usize) -> usize {
    let grain = match opts.parallelism {
        Parallelism::Sequential => return 1,
        Parallelism::Auto => params::PAR_GRAIN_BYTES,
        Parallelism::Grain(g) => g.max(1),
    };
    if units <= 1 || bytes < grain {
        return 1;
    }
    let threads = pool.map_or_else(crate::env::pool_threads, rayon::ThreadPool::current_num_threads);
    threads.min(units).max(1)
}

/// Where chunk `c` of `chunks` starts among `units` units (balanced: the first `units mod chunks` chunks take one
/// more; `share(units, chunks, chunks) == units`).
pub(crate) fn share(units: usize, chunks: usize, c: usize) -> usize {
    let (q, rem) = (units.checked_div(chunks).unwrap_or(0), units.checked_rem(chunks).unwrap_or(0));
    q.wrapping_mul(c).wrapping_add(rem.min(c))
}

/// A raw pointer that may cross threads. Sound here because the chunks of one program address disjoint output
/// bytes (the walk's output is injective) and, outside their own elements, only read.
#[derive(Clone, Copy)]
pub(crate) struct SendPtr(pub(crate) *mut u8);

// SAFETY: see the type's documentation; the pointee is only accessed through the walk's disjoint chunks.
unsafe impl Send for SendPtr {}
// SAFETY: as above.
unsafe impl Sync for SendPtr {}

/// A range of work units of one program: whole rows (`pieces == 1`) or pieces of rows (`unit = row·pieces + piece`).
struct Chunk<'a> {
    program: &'a Program,
    src: *const u8,
    dst: *mut u8,
    units: (usize, usize),
    pieces: usize,
    stream: bool,
}

impl Job for Chunk<'_> {
    type Output = ();

    fn run<A: Arch>(self, a: A) {
        debug_assert!(A::ISA.is_available(), "a token of {} exists on a CPU without it", A::ISA);
        with_rows(a, &self.program.strategy, self.stream, &mut |rows| self.drive(rows));
    }
}

/// Coordinates of row `r` in the outer dimensions (row-major over `extents`).
fn unravel(mut r: usize, rank: usize, extents: &[usize]) -> [usize; crate::walk::MAX_OUTER] {
    let mut c = [0usize; crate::walk::MAX_OUTER];
    for k in (0..rank).rev() {
        c[k] = r % extents[k];
        r /= extents[k];
    }
    c
}

/// Start of piece `j` of `p` equal pieces of `len` (the first `len % p` pieces are one longer).
fn piece_start(len: usize, p: usize, j: usize) -> usize {
    j * (len / p) + j.min(len % p)
}

impl Chunk<'_> {
    /// Walks the chunk with the row kernel `rows`.
    fn drive(&self, rows: &dyn Rows) {
        let g = self.program.strategy.geometry();
        let w = self.program.walk.plan();
        // The bases lie inside the buffers: Program::run checked the lengths against the walk's reach.
        let src = self.src.wrapping_add(w.in_base());
        let dst = self.dst.wrapping_add(w.out_base());
        // The parameter pair of coordinate 0 (a normalization's; a dangling, never-read pointer otherwise).
        let aux = match w.params() {
            Some(p) => p.table().as_ptr().cast::<u8>().wrapping_add(self.program.walk.aux_base()),
            None => core::ptr::NonNull::<u8>::dangling().as_ptr().cast_const(),
        };
        let (first, end) = self.units;
        let rank = g.outer_rank();
        if self.pieces == 1 {
            // PERF: most chunks start at row 0; skip the divisions then (they cost tens of ns on tiny walks).
            let start = if first == 0 { [0; crate::walk::MAX_OUTER] } else { unravel(first, rank, g.extents()) };
            // SAFETY: `src`/`dst` point at coordinate 0 of buffers at least as long as the walk needs (checked by
            // Program::run); the geometry is a partition of the proven dimensions (Walk), so every row it walks is
            // in bounds and injective; `start` is row `first` < rows and `end - first` rows remain.
            unsafe {
                nest(
                    rank,
                    rows,
                    src,
                    dst,
                    aux,
                    g.extents(),
                    g.in_strides(),
                    g.out_strides(),
                    g.aux_strides(),
                    &start,
                    end - first,
                )
            };
            return;
        }
        let row = g.row();
        for u in first..end {
            let (r, j) = (u / self.pieces, u % self.pieces);
            let lo = piece_start(row.extent, self.pieces, j);
            let hi = piece_start(row.extent, self.pieces, j + 1);
            if lo == hi {
                continue;
            }
            let c = unravel(r, rank, g.extents());
            let (mut s, mut d, mut x) = (src, dst, aux);
            for (k, &ck) in c.iter().enumerate().take(rank) {
                s = s.wrapping_offset(ck as isize * g.in_strides()[k]);
                d = d.wrapping_offset(ck as isize * g.out_strides()[k]);
                x = x.wrapping_offset(ck as isize * g.aux_strides()[k]);
            }
            s = s.wrapping_offset(lo as isize * row.in_stride);
            d = d.wrapping_offset(lo as isize * row.out_stride);
            x = x.wrapping_offset(lo as isize * g.row_aux());
            // SAFETY: elements lo..hi of row r are elements of the walk, in bounds and injective as above.
            unsafe { rows.span(s, d, x, hi - lo) };
        }
    }
}

/// How a program is split: `chunks` tasks over `rows · pieces` units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Schedule {
    pub(crate) chunks: usize,
    pub(crate) pieces: usize,
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Chooses the split of `rows` rows of `row_len` elements writing `bytes` bytes in all, over `threads` threads.
fn schedule(
    rows: usize,
    row_len: usize,
    bytes: usize,
    kind: RowKind,
    parallelism: Parallelism,
    threads: impl FnOnce() -> usize,
) -> Schedule {
    const ONE: Schedule = Schedule { chunks: 1, pieces: 1 };
    let (grain, min_piece) = match parallelism {
        Parallelism::Sequential => return ONE,
        Parallelism::Auto => (params::PAR_GRAIN_BYTES, params::MIN_PIECE_BYTES),
        Parallelism::Grain(g) => (g.max(1), g.max(1)),
    };
    if bytes < grain {
        return ONE;
    }
    // PERF: asked only now: rayon's thread count costs a registry lookup (50 instructions, a fifth of a small
    // call's fixed cost).
    let threads = threads();
    if threads <= 1 {
        return ONE;
    }
    let chunks = threads * params::CHUNKS_PER_THREAD;
    let table = matches!(kind, RowKind::Table { .. });
    let pieces = if table || rows.is_multiple_of(chunks) || rows >= params::ROWS_PER_CHUNK_NO_SPLIT * chunks {
        1
    } else {
        // Cut rows so that the units divide evenly among the chunks, unless the pieces would get too short.
        let row_bytes = bytes / rows.max(1);
        (chunks / gcd(rows, chunks)).min((row_bytes / min_piece).max(1)).min(row_len)
    };
    Schedule { chunks: chunks.min(rows * pieces), pieces }
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
mod tests {
    use super::*;
    use crate::CacheSizes;

    /// Walks of at most `TINY_MAX` elements run element by element ([`Tiny`]): copies of the element widths, a
    /// cast and a scale-bias, rows read backwards and columns with stride 2, both bases set, equal to the obvious
    /// loop over coordinates with the bytes between elements untouched; a buffer shorter than the elements is
    /// refused with nothing written.
    #[test]
    fn tiny_walks_match_the_obvious_loop() {
        use crate::ElemType;
        // (16-byte elements take the strided row kernel.)
        let mut ops: Vec<ElementOp> = [1, 2, 3, 4, 6, 8, 12].map(|width| ElementOp::Copy { width }).to_vec();
        ops.push(ElementOp::Cast { from: ElemType::F32, to: ElemType::F16 });
        ops.push(ElementOp::Cast { from: ElemType::U8, to: ElemType::U8 });
        ops.push(ElementOp::ScaleBias { ty: ElemType::F32, scale: 0.5, bias: -3.0 });
        for op in ops {
            let (iw, ow) = (op.in_width() as isize, op.out_width() as isize);
            // 3 rows of 5: input rows 12 elements apart read last first, columns 2 apart; output column-major.
            let dims = [(3, -12 * iw, ow), (5, 2 * iw, 3 * ow)];
            let (in_base, out_base) = (24 * iw as usize + 5, ow as usize);
            let plan = Plan::new(
                op,
                in_base,
                out_base,
                dims.iter().map(|&(extent, in_stride, out_stride)| Dim { extent, in_stride, out_stride }).collect(),
            );
            let program = Program::new(&plan).unwrap();
            assert!(program.tiny.is_some(), "{op:?}: {:?}", program.kind());
            let src: Vec<u8> = (0..in_base + 10 * iw as usize).map(|i| (i * 37 % 251) as u8).collect();
            let out_len = out_base + 15 * ow as usize + 3;
            let mut want = vec![0xA5u8; out_len];
            for r in 0..3 {
                for c in 0..5 {
                    let i = (in_base as isize + r * dims[0].1 + c * dims[1].1) as usize;
                    let o = (out_base as isize + r * dims[0].2 + c * dims[1].2) as usize;
                    assert!(op.apply_one(&src[i..i + iw as usize], &mut want[o..o + ow as usize]));
                }
            }
            for opts in [ExecOptions::sequential(), ExecOptions::default().with_isa(crate::Isa::Scalar)] {
                let mut got = vec![0xA5u8; out_len];
                program.run(&src, &mut got, &opts).unwrap();
                assert_eq!(got, want, "{op:?}");
            }
            let tiny = program.tiny.as_ref().unwrap();
            let mut short = vec![0xA5u8; tiny.ends.1 - 1];
            let e = tiny.run(&op, &src, &mut short).unwrap_err();
            assert!(matches!(e, RunError::BufferTooSmall { operand: "output", .. }), "{e:?}");
            assert!(short.iter().all(|&b| b == 0xA5), "nothing written");
            let e = tiny.run(&op, &src[..tiny.ends.0 - 1], &mut vec![0; out_len]).unwrap_err();
            assert!(matches!(e, RunError::BufferTooSmall { operand: "input", .. }), "{e:?}");
        }
    }

    /// Short rows whose next dimension is too long for a table are gathered into tables of whole rows by cutting
    /// that dimension at a divisor; a transpose keeps its tiles, and a dimension without a fitting divisor stays.
    #[test]
    fn short_rows_gather_into_tables_of_whole_rows() {
        // 16768 rows of 3 reversed f32 (a reflect pad's left border): 64 rows per table row.
        let rows = |n: usize| {
            let dims = vec![
                Dim { extent: n, in_stride: 4192, out_stride: 4192 },
                Dim { extent: 3, in_stride: -4, out_stride: 4 },
            ];
            Program::new(&Plan::copy(4, 24, 0, dims)).unwrap()
        };
        let p = rows(16768);
        assert_eq!(p.kind(), RowKind::Table { len: 3 * 64 });
        assert_eq!(p.plan().dims().len(), 3);
        assert_eq!(rows(16787).kind(), RowKind::Reverse, "16787 is prime: no divisor to cut at");
        let src: Vec<u8> = (0..16768 * 4192).map(|i| (i % 251) as u8).collect();
        let (mut a, mut b) = (vec![0u8; 16768 * 4192], vec![0u8; 16768 * 4192]);
        p.run(&src, &mut a, &ExecOptions::sequential()).unwrap();
        rows(16768).run(&src, &mut b, &ExecOptions::sequential().with_isa(crate::Isa::Scalar)).unwrap();
        for r in [0usize, 1, 8383, 16767] {
            let row = &a[r * 4192..r * 4192 + 12];
            let want: Vec<u8> =
                [24usize, 20, 16].iter().flat_map(|&o| src[r * 4192 + o..r * 4192 + o + 4].to_vec()).collect();
            assert_eq!(row, &want[..], "row {r}");
        }
        assert!(a == b);
    }

    /// Calls of a program whose footprint is just over its streaming threshold go through the store probe (and move the
    /// right bytes whichever kind each call picks); forced kinds and programs far from the threshold do not.
    #[test]
    fn calls_near_the_threshold_measure_their_store_kind() {
        // Bytes each way: a footprint 5% over the threshold (which the rule streams).
        let half = CacheSizes::get().stream_threshold_for(1) / 40 * 21 / 64 * 64;
        // Rows of 8 KiB, 16 KiB apart in the input (so that they do not coalesce into one long row).
        let rows = half.div_ceil(8192);
        let copy = |rows: usize| {
            let dims = vec![
                Dim { extent: rows, in_stride: 16384, out_stride: 8192 },
                Dim { extent: 2048, in_stride: 4, out_stride: 4 },
            ];
            Program::new(&Plan::copy(4, 0, 0, dims)).unwrap()
        };
        let near = copy(rows);
        let src: Vec<u8> = (0..rows * 16384).map(|i| (i % 251) as u8).collect();
        let mut dst = vec![0u8; rows * 8192];
        let calls = params::STORE_PROBE_START + 2 * params::STORE_PROBE_RUN + 1; // through a probe of both kinds
        for call in 0..calls {
            dst.fill(0);
            near.run(&src, &mut dst, &ExecOptions::sequential()).unwrap();
            let same = (0..rows).all(|r| src[r * 16384..r * 16384 + 8192] == dst[r * 8192..(r + 1) * 8192]);
            assert!(same, "call {call}");
        }
        assert_eq!(near.probe.calls(false), calls);
        near.run(&src, &mut dst, &ExecOptions::sequential().with_streaming(true)).unwrap();
        assert_eq!(near.probe.calls(false), calls, "a forced kind is not measured");
        near.run(&src, &mut dst, &ExecOptions::sequential().with_timed_stores(false)).unwrap();
        assert_eq!(near.probe.calls(false), calls, "timed stores turned off");
        let untimed = copy(rows);
        for _ in 0..calls {
            untimed.run(&src, &mut dst, &ExecOptions::sequential().with_timed_stores(false)).unwrap();
        }
        assert_eq!(untimed.probe.calls(false), 0, "the rule alone when timing is off");
        // Far below the threshold (a quarter): the rule alone.
        let far = copy(rows / 4);
        far.run(&src, &mut dst, &ExecOptions::sequential()).unwrap();
        assert_eq!(far.probe.calls(false), 0);
    }
}
