//! proptest strategies for random but valid copy-family descriptors.

use proptest::prelude::*;
use strider::{DataType, TensorDesc};

/// How a tensor's strides are made from its sizes.
#[derive(Clone, Debug)]
pub enum Layout {
    /// No strides.
    Packed,
    /// Row-major in the order `perm` (outermost first), with `pad[k]` extra elements after each level.
    Ordered { perm: Vec<usize>, pad: Vec<u32> },
    /// As `Ordered`, then the dimensions in `zero` get stride 0 (input only: broadcast).
    Broadcast { perm: Vec<usize>, pad: Vec<u32>, zero: Vec<bool> },
    /// Arbitrary strides (input only: may alias).
    Arbitrary(Vec<u32>),
}

impl Layout {
    pub fn desc(&self, data_type: DataType, sizes: &[u32]) -> TensorDesc {
        match self {
            Layout::Packed => TensorDesc::new(data_type, sizes).unwrap(),
            Layout::Ordered { perm, pad } => {
                TensorDesc::with_strides(data_type, sizes, &ordered(sizes, perm, pad)).unwrap()
            }
            Layout::Broadcast { perm, pad, zero } => {
                let mut s = ordered(sizes, perm, pad);
                for (s, &z) in s.iter_mut().zip(zero) {
                    if z {
                        *s = 0;
                    }
                }
                TensorDesc::with_strides(data_type, sizes, &s).unwrap()
            }
            Layout::Arbitrary(s) => TensorDesc::with_strides(data_type, sizes, s).unwrap(),
        }
    }
}

/// Strides laying out `sizes` with dimension `perm[0]` outermost … `perm[rank-1]` innermost, padded by `pad`.
pub fn ordered(sizes: &[u32], perm: &[usize], pad: &[u32]) -> Vec<u32> {
    let mut strides = vec![0u32; sizes.len()];
    let mut acc = 1u32;
    for (level, &d) in perm.iter().enumerate().rev() {
        strides[d] = acc;
        acc = acc * sizes[d] + pad[level];
    }
    strides
}

pub fn layout(rank: usize, input: bool) -> BoxedStrategy<Layout> {
    let perm = Just((0..rank).collect::<Vec<usize>>()).prop_shuffle();
    let pad = proptest::collection::vec(prop_oneof![3 => Just(0u32), 1 => 1u32..4], rank);
    let ordered = (perm.clone(), pad.clone()).prop_map(|(perm, pad)| Layout::Ordered { perm, pad });
    let row_major_padded = pad.clone().prop_map(move |pad| Layout::Ordered { perm: (0..rank).collect(), pad });
    if !input {
        return prop_oneof![Just(Layout::Packed), row_major_padded, ordered].boxed();
    }
    let broadcast = (perm, pad, proptest::collection::vec(any::<bool>(), rank))
        .prop_map(|(perm, pad, zero)| Layout::Broadcast { perm, pad, zero });
    let arbitrary = proptest::collection::vec(0u32..24, rank).prop_map(Layout::Arbitrary);
    prop_oneof![2 => Just(Layout::Packed), 1 => row_major_padded, 2 => ordered, 1 => broadcast, 1 => arbitrary].boxed()
}

/// One dimension of a DML_SLICE1: input size, window offset/size/stride, output size.
#[derive(Clone, Debug)]
pub struct WindowDim {
    pub input_size: u32,
    pub offset: u32,
    pub size: u32,
    pub stride: i32,
    pub output_size: u32,
}

/// Largest input size per dimension for a rank, keeping element counts in the tens of thousands while still
/// reaching past 4 SIMD vectors of bytes in rank 1.
pub fn max_size(rank: usize) -> u32 {
    [0, 300, 48, 14, 8, 5, 4, 3, 3][rank]
}

pub fn window_dim(max: u32) -> impl Strategy<Value = WindowDim> {
    (1..=max)
        .prop_flat_map(|n| (Just(n), 0..n))
        .prop_flat_map(|(n, offset)| (Just(n), Just(offset), 1..=n - offset))
        .prop_flat_map(|(n, offset, size)| {
            let mag = prop_oneof![4 => 1i32..=4, 1 => 1..=(size as i32 + 1)];
            (Just(n), Just(offset), Just(size), mag, any::<bool>())
        })
        .prop_flat_map(|(input_size, offset, size, mag, neg)| {
            let stride = if neg { -mag } else { mag };
            let max_out = 1 + (size - 1) / mag as u32;
            let out = prop_oneof![3 => Just(max_out), 1 => 1..=max_out];
            (Just(input_size), Just(offset), Just(size), Just(stride), out)
        })
        .prop_map(|(input_size, offset, size, stride, output_size)| WindowDim {
            input_size,
            offset,
            size,
            stride,
            output_size,
        })
}

#[derive(Clone, Debug)]
pub struct Slice1Case {
    pub data_type: DataType,
    pub dims: Vec<WindowDim>,
    pub input: Layout,
    pub output: Layout,
    pub in_misalign: usize,
    pub out_misalign: usize,
    pub seed: u64,
}

impl Slice1Case {
    pub fn input_desc(&self) -> TensorDesc {
        let sizes: Vec<u32> = self.dims.iter().map(|d| d.input_size).collect();
        self.input.desc(self.data_type, &sizes)
    }

    pub fn output_desc(&self) -> TensorDesc {
        let sizes: Vec<u32> = self.dims.iter().map(|d| d.output_size).collect();
        self.output.desc(self.data_type, &sizes)
    }

    pub fn offsets(&self) -> Vec<u32> {
        self.dims.iter().map(|d| d.offset).collect()
    }

    pub fn sizes(&self) -> Vec<u32> {
        self.dims.iter().map(|d| d.size).collect()
    }

    pub fn strides(&self) -> Vec<i32> {
        self.dims.iter().map(|d| d.stride).collect()
    }
}

pub fn slice1_case() -> impl Strategy<Value = Slice1Case> {
    (0..DataType::ALL.len(), 1usize..=8)
        .prop_flat_map(|(dt, rank)| {
            (
                Just(DataType::ALL[dt]),
                proptest::collection::vec(window_dim(max_size(rank)), rank),
                layout(rank, true),
                layout(rank, false),
                0usize..8,
                0usize..8,
                any::<u64>(),
            )
        })
        .prop_map(|(data_type, dims, input, output, in_misalign, out_misalign, seed)| Slice1Case {
            data_type,
            dims,
            input,
            output,
            in_misalign,
            out_misalign,
            seed,
        })
}
