//! SIMD row kernels, generated loop nests and the scheduler behind [`strider`](https://docs.rs/strider).
//!
//! This crate holds all of Strider's `unsafe` code. Its public surface is safe: a [`Plan`] (plain data produced
//! by the planner) becomes an executable [`Walk`] only through [`Walk::new`], which proves the invariants every
//! kernel relies on: each address a walk touches lies inside the buffers whose lengths [`Walk::run`] checks, and
//! no two output elements share a byte (so parallel chunks never race).
//!
//! ```
//! use strider_kernels::{Dim, ExecOptions, Plan, Walk};
//!
//! // Reverse 5 four-byte elements: input stride -4 bytes starting at the last element.
//! let plan = Plan { width: 4, in_base: 16, out_base: 0, dims: vec![Dim { extent: 5, in_stride: -4, out_stride: 4 }] };
//! let walk = Walk::new(&plan).unwrap();
//! let src: Vec<u8> = (0..20).collect();
//! let mut dst = vec![0u8; 20];
//! walk.run(&src, &mut dst, &ExecOptions::sequential()).unwrap();
//! assert_eq!(&dst[..8], &[16, 17, 18, 19, 12, 13, 14, 15]);
//! ```
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks, missing_docs)]

mod exec;
mod isa;
mod nest;
pub mod overlap;
pub mod params;
mod plan;
mod rows;
mod shuffle;
mod simd;
mod width;

pub use exec::{ExecOptions, Parallelism};
pub use isa::Isa;
pub use plan::{Dim, MAX_RANK, Plan, PlanError, RowKind, RunError, Walk};
pub use width::{Width, WidthVisitor};
