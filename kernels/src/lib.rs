//! SIMD row kernels, generated loop nests and the scheduler behind [`strider`](https://docs.rs/strider).
//!
//! This crate holds all of Strider's `unsafe` code. Its public surface is safe for every input: a [`Plan`] (plain
//! data) becomes runnable only through [`Program::new`], which proves it ([`Walk::new`]: every address in range, no
//! output byte written twice) before choosing kernels, and [`Program::run`] checks buffer lengths.
//!
//! # Layers
//!
//! Each module depends only on the ones listed before it:
//!
//! | module | role |
//! |---|---|
//! | `params`, `env`, `cache`, `width`, `overlap`, `float` | tuning constants, environment variables, detected cache sizes, element widths, the injectivity decision, scalar float conversions bit-exact with the instructions |
//! | `tables` | byte-shuffle tables for group reverses, small-stride gathers and planes |
//! | `fused` | what a conversion fused into a move is (Normalize's types, parameters and runs of rows), as the levels take it |
//! | `arch/` | instruction-set levels: detection, the vector trait, one file per level; copy/reverse/gather loops written once |
//! | `convert` | element conversions: helper steps and the generated (source, destination) routes |
//! | `plan` | [`Plan`]: what to move (plain data) |
//! | `walk` | **where a walk is proved safe**: [`Walk`], and the only constructor of the geometry kernels walk |
//! | `strategy` | **where its strategy is chosen**: row, folded dimension or table, and the [`RowKind`] |
//! | `rows/` | row kernels, one file per kind, type-erased; conversions staged through small buffers |
//! | `nest` | generated loop nests (one per outer rank) |
//! | `team` | how a split's chunks are shared between the caller and pool threads (claims, spinning, lingering) |
//! | `measure` | store kinds chosen by timing a program's own calls, near the streaming threshold |
//! | `exec` | **where it runs**: [`Program`], scheduling across threads, level dispatch |
//! | `batch` | operators of many operands: stages of moves between many buffers, split across threads as one piece of work |
//! | `indexed` | index-driven moves (gather, scatter, one-hot): positions, index tuples checked before anything runs, blocks |
//! | `resize` | image resize: separable weights ([`Taps`]), horizontal passes over blocks of rows, vertical passes out of a strip |
//!
//! ```
//! use strider_kernels::{Dim, ElemType, ElementOp, ExecOptions, Plan, Program};
//!
//! // Convert 4 f32 to f16, reversed.
//! let op = ElementOp::Cast { from: ElemType::F32, to: ElemType::F16 };
//! let plan = Plan::new(op, 12, 0, vec![Dim { extent: 4, in_stride: -4, out_stride: 2 }]);
//! let program = Program::new(&plan).unwrap();
//! let src: Vec<u8> = [1.0f32, 2.0, 0.5, -3.0].iter().flat_map(|x| x.to_le_bytes()).collect();
//! let mut dst = vec![0u8; 8];
//! program.run(&src, &mut dst, &ExecOptions::sequential()).unwrap();
//! let halves: Vec<u16> = dst.chunks(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect();
//! assert_eq!(halves, [0xC200, 0x3800, 0x4000, 0x3C00]); // -3, 0.5, 2, 1
//! ```
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks, missing_docs)]

mod arch;
mod batch;
mod cache;
mod convert;
mod env;
mod exec;
mod float;
mod fused;
mod indexed;
mod measure;
mod nest;
mod overlap;
mod params;
mod plan;
mod resize;
mod rows;
mod strategy;
mod tables;
mod team;
mod walk;
mod width;

/// The crate's own tests, each one's path and function, for `tests/unit.rs` to run. Compiled with the `selftest`
/// feature, which only the crate's dev-dependency on itself turns on: one build of the crate then serves its own
/// tests and every other test of the workspace (a `--test` build would compile the whole crate a second time).
#[cfg(feature = "selftest")]
#[doc(hidden)]
pub fn selftests() -> Vec<(&'static str, fn())> {
    [
        arch::selftests(),
        rows::selftests(),
        batch::tests::tests(),
        cache::tests::tests(),
        convert::tests::tests(),
        exec::tests::tests(),
        float::tests::tests(),
        indexed::tests::tests(),
        measure::tests::tests(),
        overlap::tests::tests(),
        resize::tests::tests(),
        strategy::tests::tests(),
        tables::tests::tests(),
        team::tests::tests(),
        walk::tests::tests(),
    ]
    .concat()
}

pub use arch::Isa;
pub use batch::{Batch, Move, Source};
pub use cache::CacheSizes;
pub use convert::ElemType;
pub use exec::{ExecOptions, MAX_THREADS, Parallelism, Program, RunError, spread, thread_pool, threads_for};
pub use indexed::{
    Checked, Component, IndexDim, IndexError, IndexPlan, IndexPlanError, IndexProgram, IndexType, MAX_INDEX_RANK,
    OutOfRange, RowCopy, Side,
};
pub use overlap::{Overlap, find_overlap};
pub use plan::{Dim, ElementOp, MAX_RANK, Params, Plan};
pub use resize::{Epilogue, Filter, MAX_SIDE as MAX_RESIZE_SIDE, ResizePlan, ResizeProgram, Taps};
pub use strategy::RowKind;
pub use walk::{PlanError, Walk};
pub use width::{Width, WidthVisitor};
