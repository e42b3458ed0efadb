//! Strider: SIMD CPU kernels for DirectML's strided-tensor model — `DML_SLICE1` and the copy family at `memcpy`
//! speed, bit-exact, for every data type and rank 1 to 8.
//!
//! ```
//! use strider::{DataType, Slice1, TensorDesc};
//!
//! // Flip a 4×6 u8 image horizontally and keep every other row.
//! let input = TensorDesc::new(DataType::Uint8, &[4, 6])?;
//! let output = TensorDesc::new(DataType::Uint8, &[2, 6])?;
//! let op = Slice1::new(&input, &output, &[0, 0], &[4, 6], &[2, -1])?;
//! let x: Vec<u8> = (0..24).collect();
//! let mut y = vec![0u8; 12];
//! op.execute(&x, &mut y)?;
//! assert_eq!(y, [5, 4, 3, 2, 1, 0, 17, 16, 15, 14, 13, 12]);
//! # Ok::<(), strider::Error>(())
//! ```
//!
//! # Memory layout
//!
//! A tensor is described by a [`TensorDesc`]: a [`DataType`], *sizes* (1 to 8 dimensions, outermost first) and
//! optional *strides*, counted in elements. Element `c` lives at element offset `Σ cᵢ·stridesᵢ` of its buffer.
//!
//! - No strides: packed row-major, `stridesᵢ = Π_{j>i} sizesⱼ`; a 2×2×3 (DHW) tensor has strides `{6, 3, 1}`.
//! - Larger strides pad: a 2×3 tensor with strides `{5, 1}` skips 2 elements after each row.
//! - Stride 0 broadcasts: a 2×3 tensor with strides `{0, 1}` reads the same 3 elements for both rows.
//! - Permuted strides describe other layouts under the same NCHW-ordered sizes: packed NHWC data of sizes
//!   `{N, C, H, W}` has strides `{H·W·C, 1, W·C, C}`.
//!
//! [`calc_buffer_tensor_size`] is DirectML's `DMLCalcBufferTensorSize`; [`TensorDesc::addressed_bytes`] is the
//! least buffer length an operator accepts.
//!
//! # Execution
//!
//! Operators validate and plan at construction and are then immutable, `Send + Sync` and reusable. `execute`
//! checks buffer lengths only, never allocates on small outputs, and splits large ones across rayon's current
//! pool; [`ExecOptions`] forces sequential execution or an instruction set.
#![forbid(unsafe_code)]
#![deny(clippy::arithmetic_side_effects)]
#![warn(missing_docs)]

mod desc;
mod dtype;
mod engine;
mod error;
mod operator;
mod ops;
mod plan;
mod scalar;
mod threads;

pub use desc::{MAX_RANK, TensorDesc, TensorFlags, calc_buffer_tensor_size};
pub use dtype::{DataType, Element};
pub use error::{Error, Operand};
pub use operator::{Operator, OperatorDesc};
pub use ops::cast::Cast;
pub use ops::depth_space::{DepthSpaceOrder, DepthToSpace, SpaceToDepth};
pub use ops::fill::{Fill, FillValues};
pub use ops::gather::{Gather, GatherElements, GatherNd};
pub use ops::identity::{Identity, ScaleBias};
pub use ops::image::{IMAGENET_MEAN, IMAGENET_STD, ImageLayout, ImageNormalize, ImageResize, mean_std_to_scale_bias};
pub use ops::join::{Join, Split};
pub use ops::normalize::Normalize;
pub use ops::padding::{Padding, PaddingMode};
pub use ops::resize::{Letterbox, Resize, ResizeFilter, center_crop_offsets, letterbox_geometry, shorter_side_size};
pub use ops::scatter::{OneHot, ScatterElements, ScatterNd};
pub use ops::slice::Slice;
pub use ops::slice1::Slice1;
pub use ops::tile::Tile;
pub use scalar::Scalar;
pub use strider_kernels::{
    CacheSizes, Dim, ElemType, ElementOp, ExecOptions, Isa, MAX_THREADS, Parallelism, Params, Plan, RowKind, Taps,
};
pub use threads::with_threads;

/// Re-export of the `half` crate, whose `f16` is the element type of [`DataType::Float16`].
pub use half;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
