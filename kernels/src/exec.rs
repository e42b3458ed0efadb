//! Execution of a walk: split into chunks (or not), dispatch each chunk onto the SIMD level once, walk it.

use rayon::prelude::*;

use crate::isa::{Isa, Job, Level};
use crate::nest::{NEST_ARRAY_LEN, Row, nest};
use crate::params;
use crate::plan::Walk;

/// Whether a walk may use more than the calling thread.
///
/// Threads come from rayon's current pool: callers bound them with `rayon::ThreadPool::install` or
/// `RAYON_NUM_THREADS`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Parallelism {
    /// Split across the current rayon pool when the output is large enough to repay the hand-off
    /// ([`params::PAR_GRAIN_BYTES`]); otherwise run on the calling thread.
    #[default]
    Auto,
    /// Always run on the calling thread, never touching the pool (lowest latency for small operators).
    Sequential,
    /// Split across the current pool whenever the output has at least this many bytes, into pieces of at least
    /// this many bytes where possible (for tuning, and for tests that exercise splits on small tensors).
    Grain(usize),
}

/// How a walk runs: threads, instruction set and store kind.
///
/// The default splits large outputs across rayon's current pool, uses the best instruction set of this CPU, and
/// chooses non-temporal stores from the walk's footprint.
///
/// # Examples
///
/// ```
/// use strider_kernels::{ExecOptions, Isa, Parallelism};
/// let opts = ExecOptions::sequential().with_isa(Isa::Scalar);
/// assert_eq!(opts.parallelism, Parallelism::Sequential);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ExecOptions {
    /// Whether the copy may be split across rayon's current pool.
    pub parallelism: Parallelism,
    /// A forced instruction set (`None`: the best available).
    pub isa: Option<Isa>,
    /// Force non-temporal stores on or off (`None`: on when the bytes the walk touches — its output plus the input
    /// it actually reads — reach [`params::STREAM_FOOTPRINT_BYTES`] and rows are long enough). Streaming suits outputs that are not read again soon; turn it
    /// off when the next step consumes the output right away.
    pub streaming: Option<bool>,
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
}

/// A raw pointer that may cross threads. Sound here because the chunks of one walk address disjoint output bytes
/// (the walk's output is injective) and only read the input.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);

// SAFETY: see the type's documentation; the pointee is only accessed through the walk's disjoint chunks.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// A method, not a field access, so closures capture the wrapper rather than the raw pointer.
    fn get(self) -> *mut T {
        self.0
    }
}

/// A range of work units of one walk: whole rows (`pieces == 1`) or pieces of rows (`unit = row·pieces + piece`).
#[derive(Clone, Copy)]
pub(crate) struct Chunk<'a> {
    pub(crate) walk: &'a Walk,
    src: *const u8,
    dst: *mut u8,
    units: (usize, usize),
    pieces: usize,
    /// Non-temporal stores for the vector kernels.
    pub(crate) stream: bool,
}

impl Job for Chunk<'_> {
    type Output = ();

    #[inline(always)]
    fn run<K: crate::simd::Kern>(self, k: K) {
        crate::rows::run_chunk(k, self)
    }
}

/// Coordinates of row `r` in the outer dimensions (row-major over `extents`).
#[inline(always)]
fn unravel(mut r: usize, walk: &Walk) -> [usize; NEST_ARRAY_LEN] {
    let mut c = [0usize; NEST_ARRAY_LEN];
    for k in (0..walk.outer_rank).rev() {
        c[k] = r % walk.extents[k];
        r /= walk.extents[k];
    }
    c
}

/// Start of piece `j` of `p` equal pieces of `len` (the first `len % p` pieces are one longer).
#[inline(always)]
fn piece_start(len: usize, p: usize, j: usize) -> usize {
    j * (len / p) + j.min(len % p)
}

impl Chunk<'_> {
    /// Walks the chunk with row kernel `row`.
    #[inline(always)]
    pub(crate) fn drive<R: Row>(self, row: R) {
        let w = self.walk;
        // The bases lie inside the buffers: Walk::run checked the lengths against the walk's span.
        let src = self.src.wrapping_add(w.in_base);
        let dst = self.dst.wrapping_add(w.out_base);
        let (first, end) = self.units;
        if self.pieces == 1 {
            // PERF: most chunks start at row 0; skip the divisions then (they cost tens of ns on tiny walks).
            let start = if first == 0 { [0; NEST_ARRAY_LEN] } else { unravel(first, w) };
            // SAFETY: `src`/`dst` point at coordinate 0 of buffers at least `input_bytes_needed` /
            // `output_bytes_needed` long (checked by Walk::run); Walk::new proved every coordinate's element in
            // bounds and the output injective; `start` is row `first` < rows and `end - first` rows remain.
            unsafe {
                nest(w.outer_rank, &row, src, dst, &w.extents, &w.in_strides, &w.out_strides, &start, end - first)
            };
            return;
        }
        for u in first..end {
            let (r, j) = (u / self.pieces, u % self.pieces);
            let lo = piece_start(w.row_len, self.pieces, j);
            let hi = piece_start(w.row_len, self.pieces, j + 1);
            if lo == hi {
                continue;
            }
            let c = unravel(r, w);
            let (mut s, mut d) = (src, dst);
            for ((&ck, &is), &os) in c.iter().zip(&w.in_strides).zip(&w.out_strides).take(w.outer_rank) {
                s = s.wrapping_offset(ck as isize * is);
                d = d.wrapping_offset(ck as isize * os);
            }
            s = s.wrapping_offset(lo as isize * w.row_in_stride);
            d = d.wrapping_offset(lo as isize * w.row_out_stride);
            // SAFETY: elements lo..hi of row r are elements of the walk, in bounds and injective as above.
            unsafe { row.with_len(hi - lo).rows(s, d, 1, 0, 0) };
        }
    }
}

/// How a walk is split: `chunks` tasks over `rows · pieces` units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Schedule {
    pub(crate) chunks: usize,
    pub(crate) pieces: usize,
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Chooses the split of `walk` for `threads` pool threads.
pub(crate) fn schedule(walk: &Walk, parallelism: Parallelism, threads: impl FnOnce() -> usize) -> Schedule {
    const ONE: Schedule = Schedule { chunks: 1, pieces: 1 };
    let (grain, min_piece) = match parallelism {
        Parallelism::Sequential => return ONE,
        Parallelism::Auto => (params::PAR_GRAIN_BYTES, params::MIN_PIECE_BYTES),
        Parallelism::Grain(g) => (g.max(1), g.max(1)),
    };
    if walk.out_bytes < grain {
        return ONE;
    }
    let threads = threads();
    if threads <= 1 {
        return ONE;
    }
    let chunks = threads * params::CHUNKS_PER_THREAD;
    let rows = walk.rows;
    let table = matches!(walk.kind, crate::plan::RowKind::Table { .. });
    let pieces = if table || rows.is_multiple_of(chunks) || rows >= params::ROWS_PER_CHUNK_NO_SPLIT * chunks {
        1
    } else {
        // Cut rows so that the units divide evenly among the chunks, unless the pieces would get too short.
        let row_bytes = walk.row_len * walk.width.bytes();
        (chunks / gcd(rows, chunks)).min((row_bytes / min_piece).max(1)).min(walk.row_len)
    };
    Schedule { chunks: chunks.min(rows * pieces), pieces }
}

/// Runs `walk` over buffers whose lengths `Walk::run` has checked.
pub(crate) fn run(walk: &Walk, src: &[u8], dst: &mut [u8], level: Level, opts: &ExecOptions) {
    let sched = schedule(walk, opts.parallelism, rayon::current_num_threads);
    let stream = opts.streaming.unwrap_or(walk.stream);
    let units = walk.rows * sched.pieces;
    let chunk = |c: usize, src: *const u8, dst: *mut u8| Chunk {
        walk,
        src,
        dst,
        units: (units * c / sched.chunks, units * (c + 1) / sched.chunks),
        pieces: sched.pieces,
        stream,
    };
    if sched.chunks == 1 {
        level.dispatch(chunk(0, src.as_ptr(), dst.as_mut_ptr()));
        return;
    }
    let (s, d) = (SendPtr(src.as_ptr().cast_mut()), SendPtr(dst.as_mut_ptr()));
    (0..sched.chunks).into_par_iter().with_max_len(1).for_each(|c| level.dispatch(chunk(c, s.get(), d.get())));
}
