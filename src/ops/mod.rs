//! The copy-family operators. Each validates its own description, then hands a strided copy to the engine.

/// The execution and inspection methods every operator shares; they forward to its `engine` field. `one_type`
/// operators (input and output of one data type) get `execute_typed::<T>`, `two_types` ones
/// `execute_typed::<I, O>`.
macro_rules! operator_methods {
    ($op:ident, one_type) => {
        operator_methods!($op);

        #[doc = concat!("[`", stringify!($op), "::execute`] over typed slices; `T` must be the operator's data type (`f32` for `FLOAT32`, [`half::f16`] for `FLOAT16`, …).")]
        ///
        /// Typed slices are aligned to their element; data at any byte offset goes through the byte API (`execute`).
        ///
        /// # Errors
        ///
        #[doc = concat!("[`Error::ElementTypeMismatch`] when `T` is another data type; otherwise as [`", stringify!($op), "::execute`].")]
        pub fn execute_typed<T: Element>(&self, input: &[T], output: &mut [T]) -> Result<(), Error> {
            self.engine.execute_typed(input, output, &ExecOptions::default())
        }

        #[doc = concat!("[`", stringify!($op), "::execute_typed`] with explicit options.")]
        ///
        /// # Errors
        ///
        #[doc = concat!("As [`", stringify!($op), "::execute_typed`] and [`", stringify!($op), "::execute_with`].")]
        pub fn execute_typed_with<T: Element>(&self, input: &[T], output: &mut [T], opts: &ExecOptions) -> Result<(), Error> {
            self.engine.execute_typed(input, output, opts)
        }
    };
    ($op:ident, two_types) => {
        operator_methods!($op);

        #[doc = concat!("[`", stringify!($op), "::execute`] over typed slices: `I` must be the input's data type and `O` the output's (`f32` for `FLOAT32`, [`half::f16`] for `FLOAT16`, …).")]
        ///
        /// Typed slices are aligned to their element; data at any byte offset goes through the byte API (`execute`).
        ///
        /// # Errors
        ///
        #[doc = concat!("[`Error::TypedOperandMismatch`] when `I` or `O` is another data type; otherwise as [`", stringify!($op), "::execute`].")]
        pub fn execute_typed<I: Element, O: Element>(&self, input: &[I], output: &mut [O]) -> Result<(), Error> {
            self.engine.execute_typed2(input, output, &ExecOptions::default())
        }

        #[doc = concat!("[`", stringify!($op), "::execute_typed`] with explicit options.")]
        ///
        /// # Errors
        ///
        #[doc = concat!("As [`", stringify!($op), "::execute_typed`] and [`", stringify!($op), "::execute_with`].")]
        pub fn execute_typed_with<I: Element, O: Element>(&self, input: &[I], output: &mut [O], opts: &ExecOptions) -> Result<(), Error> {
            self.engine.execute_typed2(input, output, opts)
        }
    };
    ($op:ident) => {
        /// Runs the operator from `input` into `output` (raw little-endian buffers of any alignment), using the
        /// current rayon pool for large outputs and the best instruction set of this CPU.
        ///
        /// Each buffer must hold at least [`TensorDesc::required_buffer_bytes`] of its tensor (the total size when
        /// one was set, the addressed bytes otherwise). Bytes of `output` that no output coordinate addresses
        /// (padding) are never written.
        ///
        /// # Errors
        ///
        /// [`Error::BufferTooSmall`] when a buffer is too short, [`Error::MisalignedBuffer`] when it breaks its
        /// tensor's guaranteed alignment; nothing is written then.
        pub fn execute(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
            self.engine.execute(input, output, &ExecOptions::default())
        }

        #[doc = concat!("[`", stringify!($op), "::execute`] with explicit threading, instruction-set and store choices.")]
        ///
        /// ```
        /// # use strider::{DataType, Identity, TensorDesc};
        /// use strider::{ExecOptions, Isa};
        /// # let t = TensorDesc::new(DataType::Float32, &[64])?;
        /// # let op = Identity::new(&t, &t)?;
        /// # let (x, mut y) = (vec![0u8; 256], vec![0u8; 256]);
        /// op.execute_with(&x, &mut y, &ExecOptions::sequential())?;                  // this thread only
        /// op.execute_with(&x, &mut y, &ExecOptions::default().with_isa(Isa::Scalar))?; // portable code
        /// op.execute_with(&x, &mut y, &ExecOptions::default().with_streaming(false))?; // keep the output cached
        /// # Ok::<(), strider::Error>(())
        /// ```
        ///
        /// # Errors
        ///
        #[doc = concat!("As [`", stringify!($op), "::execute`], and [`Error::IsaUnavailable`] when `opts` forces an instruction set this CPU lacks.")]
        pub fn execute_with(&self, input: &[u8], output: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
            self.engine.execute(input, output, opts)
        }

        /// The input tensor.
        pub fn input(&self) -> &TensorDesc {
            self.engine.input()
        }

        crate::ops::inspection_methods!();
    };
}

/// What every operator shows of itself, forwarding to its `engine` field: the engine (for the operator list), its
/// output, the plan and row kernel of its largest move, and `explain`.
macro_rules! inspection_methods {
    () => {
        /// The engine (for the operator list).
        pub(crate) fn engine(&self) -> &crate::engine::Engine {
            &self.engine
        }

        /// The output tensor.
        pub fn output(&self) -> &TensorDesc {
            self.engine.output()
        }

        /// The execution plan (for inspection: dimensions after dropping, ordering, coalescing and widening) of the
        /// operator's largest move (for an index operator, of the block each index tuple moves).
        pub fn plan(&self) -> &Plan {
            self.engine.plan()
        }

        /// The row kernel that plan runs.
        pub fn row_kind(&self) -> RowKind {
            self.engine.row_kind()
        }

        /// How the operator runs, in words: each move (what it reads and writes) with its plan and row kernel, one
        /// per line (and what an index tensor picks).
        pub fn explain(&self) -> String {
            self.engine.explain()
        }
    };
}
pub(crate) use inspection_methods;

pub(crate) mod cast;
pub(crate) mod depth_space;
pub(crate) mod fill;
pub(crate) mod gather;
pub(crate) mod identity;
pub(crate) mod image;
pub(crate) mod join;
pub(crate) mod normalize;
pub(crate) mod padding;
pub(crate) mod resize;
pub(crate) mod scatter;
pub(crate) mod slice;
pub(crate) mod slice1;
pub(crate) mod tile;
pub(crate) mod window;

use crate::Error;
use crate::desc::TensorDesc;
use crate::engine::{byte_range, next_coordinate};

/// A tensor's buffer as the references read it: element bytes by coordinate.
pub(crate) struct Tensor<'a> {
    desc: &'a TensorDesc,
    bytes: &'a [u8],
}

impl<'a> Tensor<'a> {
    pub(crate) fn new(desc: &'a TensorDesc, bytes: &'a [u8]) -> Tensor<'a> {
        Tensor { desc, bytes }
    }

    /// The bytes of element `c` (empty if `c` is outside the buffer, which validation and the buffer checks rule
    /// out).
    pub(crate) fn element(&self, c: &[u32]) -> &'a [u8] {
        let w = self.desc.data_type().size_in_bytes();
        self.desc.offset_of(c).and_then(|e| byte_range(e, w)).and_then(|r| self.bytes.get(r)).unwrap_or(&[])
    }
}

/// Copies one element (nothing when the lengths differ, which the references never cause).
pub(crate) fn put(y: &mut [u8], x: &[u8]) {
    if y.len() == x.len() {
        y.copy_from_slice(x);
    }
}

/// The references' loop: `f(c, element)` for every coordinate `c` of `output` in C order, with the bytes of that
/// output element (the caller has checked the buffer).
pub(crate) fn reference_each(output: &TensorDesc, out: &mut [u8], mut f: impl FnMut(&[u32], &mut [u8])) {
    let w = output.data_type().size_in_bytes();
    let sizes = output.sizes();
    let mut c = vec![0u32; sizes.len()];
    loop {
        let range = output.offset_of(&c).and_then(|e| byte_range(e, w));
        if let Some(y) = range.and_then(|r| out.get_mut(r)) {
            f(&c, y);
        }
        if !next_coordinate(&mut c, sizes) {
            return;
        }
    }
}

/// The checks every operator of many tensors starts with: a non-empty list, and equal ranks and data types (the
/// first tensor of `tensors` is the reference); returns the rank.
pub(crate) fn check_tensors(argument: &'static str, tensors: &[(crate::Operand, &TensorDesc)]) -> Result<usize, Error> {
    let Some(&(_, first)) = tensors.first() else { return Err(Error::EmptyTensorList { argument }) };
    let (rank, dt) = (first.rank(), first.data_type());
    for &(operand, t) in tensors {
        if t.rank() != rank {
            return Err(Error::OperandRankMismatch { operand, rank: t.rank(), expected: rank });
        }
        if t.data_type() != dt {
            return Err(Error::OperandDataTypeMismatch { operand, data_type: t.data_type(), expected: dt });
        }
    }
    Ok(rank)
}

/// An axis argument as a dimension of tensors of `rank` ([`Error::AxisOutOfRange`] otherwise).
pub(crate) fn check_axis(axis: u32, rank: usize) -> Result<usize, Error> {
    usize::try_from(axis).ok().filter(|&a| a < rank).ok_or(Error::AxisOutOfRange { axis, rank })
}

/// The checks every copy operator starts with: [`check_ranks`] and equal data types.
pub(crate) fn check_operands(
    input: &TensorDesc,
    output: &TensorDesc,
    args: &[(&'static str, usize)],
) -> Result<usize, Error> {
    let rank = check_ranks(input, output, args)?;
    if input.data_type() != output.data_type() {
        return Err(Error::DataTypeMismatch { input: input.data_type(), output: output.data_type() });
    }
    Ok(rank)
}

/// The checks every two-tensor operator starts with: equal ranks and argument arrays of the rank's length.
pub(crate) fn check_ranks(
    input: &TensorDesc,
    output: &TensorDesc,
    args: &[(&'static str, usize)],
) -> Result<usize, Error> {
    let rank = input.rank();
    if output.rank() != rank {
        return Err(Error::RankMismatch { input: rank, output: output.rank() });
    }
    for &(argument, len) in args {
        if len != rank {
            return Err(Error::ArgumentLength { argument, len, rank });
        }
    }
    Ok(rank)
}

/// Equal sizes in every dimension (operators whose output has the input's shape).
pub(crate) fn check_same_sizes(input: &TensorDesc, output: &TensorDesc) -> Result<(), Error> {
    for (dim, (&i, &o)) in input.sizes().iter().zip(output.sizes()).enumerate() {
        if i != o {
            return Err(Error::OutputSizeMismatch { dim, output_size: o, expected: i });
        }
    }
    Ok(())
}
