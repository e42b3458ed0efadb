//! Every tuning constant of the execution engine, in one place. Values come from sweeps on the project's 2-vCPU
//! machines (see the comments); change them only with a measurement.

/// Outputs smaller than this many bytes run on the calling thread under [`Parallelism::Auto`].
///
/// PERF: a `rayon::join` costs ~11 µs on the 2-vCPU VMs and two threads only beat one from ~2–4 MiB of output.
///
/// [`Parallelism::Auto`]: crate::Parallelism::Auto
pub const PAR_GRAIN_BYTES: usize = 2 << 20;

/// Chunks per pool thread when a walk is split (more than one lets work stealing even out slow threads).
pub const CHUNKS_PER_THREAD: usize = 1;

/// A row is never split into pieces shorter than this many bytes under [`Parallelism::Auto`].
///
/// [`Parallelism::Auto`]: crate::Parallelism::Auto
pub const MIN_PIECE_BYTES: usize = 16 << 10;

/// Rows per chunk above which an uneven split of whole rows is accepted instead of cutting rows into pieces.
pub const ROWS_PER_CHUNK_NO_SPLIT: usize = 8;

/// Work budget (search nodes) of the exact output-overlap check before it gives up as undecided.
pub const OVERLAP_SEARCH_BUDGET: u64 = 1 << 20;

/// Walks whose footprint (input span read plus bytes written) reaches this size write their vector stores
/// non-temporally: the output would not stay in cache anyway, and streaming skips the read-for-ownership of
/// every output line and leaves the cache to the input.
///
/// PERF: first estimate from a 1-KiB-row copy of 8 MiB on the Zen 4 VMs (non-temporal 0.72× of glibc `memcpy`,
/// regular stores 0.98×); to be confirmed by the cache-level sweep.
pub const STREAM_FOOTPRINT_BYTES: usize = 16 << 20;

/// Rows shorter than this many bytes absorb the next dimensions into a table row (see `RowKind::Table`).
pub const TABLE_ROW_BYTES: usize = 64;

/// Largest number of elements of a table row.
pub const TABLE_MAX: usize = 64;
