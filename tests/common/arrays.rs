//! Logical arrays (sizes and elements in C order) and random strided layouts of them: what the references of the
//! data-movement tests compute on.

use rand::Rng;
use rand::rngs::StdRng;
use strider::{DataType, TensorDesc};

use super::{Buf, SENTINEL};

/// A logical tensor: sizes and its elements' bytes in C order.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub sizes: Vec<u32>,
    pub width: usize,
    pub data: Vec<u8>,
}

impl Array {
    pub fn count(sizes: &[u32]) -> usize {
        sizes.iter().map(|&n| n as usize).product()
    }

    /// The element at logical coordinate `c`.
    pub fn at(&self, c: &[usize]) -> &[u8] {
        let mut i = 0;
        for (&x, &n) in c.iter().zip(&self.sizes) {
            i = i * n as usize + x;
        }
        &self.data[i * self.width..(i + 1) * self.width]
    }

    /// `f(c)` for every coordinate of `sizes`, in C order.
    pub fn build(sizes: &[u32], width: usize, mut f: impl FnMut(&[usize]) -> Vec<u8>) -> Array {
        let mut data = Vec::with_capacity(Array::count(sizes) * width);
        super::for_each_coord(sizes, |c| data.extend(f(c)));
        Array { sizes: sizes.to_vec(), width, data }
    }

    /// The logical elements of a strided buffer.
    pub fn read(desc: &TensorDesc, bytes: &[u8]) -> Array {
        let w = desc.data_type().size_in_bytes();
        Array::build(desc.sizes(), w, |c| {
            let off = offset(desc, c);
            bytes[off * w..(off + 1) * w].to_vec()
        })
    }

    /// The buffer of `desc` holding these elements, every other byte the sentinel.
    pub fn write(&self, desc: &TensorDesc) -> Vec<u8> {
        let mut out = vec![SENTINEL; desc.addressed_bytes() as usize];
        let w = self.width;
        let mut i = 0;
        super::for_each_coord(desc.sizes(), |c| {
            let off = offset(desc, c);
            out[off * w..(off + 1) * w].copy_from_slice(&self.data[i * w..(i + 1) * w]);
            i += 1;
        });
        out
    }

    /// `np.transpose` after `np.reshape(shape)`: element `c` of the result is element `c` permuted back.
    pub fn reshape_transpose(&self, shape: &[u32], perm: &[usize]) -> Array {
        assert_eq!(Array::count(shape), Array::count(&self.sizes));
        let reshaped = Array { sizes: shape.to_vec(), ..self.clone() };
        let out_shape: Vec<u32> = perm.iter().map(|&p| shape[p]).collect();
        Array::build(&out_shape, self.width, |c| {
            let mut src = vec![0; shape.len()];
            for (k, &p) in perm.iter().enumerate() {
                src[p] = c[k];
            }
            reshaped.at(&src).to_vec()
        })
    }
}

/// The element offset of logical coordinate `c`: reversed dimensions are counted from their far end.
pub fn offset(desc: &TensorDesc, c: &[usize]) -> usize {
    let mut off = 0;
    for (d, ((&x, &n), &s)) in c.iter().zip(desc.sizes()).zip(desc.strides()).enumerate() {
        let x = if desc.is_reversed(d) { n as usize - 1 - x } else { x };
        off += x * s as usize;
    }
    off
}

/// A random layout of `sizes`: packed, or row-major in a random order with random padding, some dimensions
/// reversed; for inputs, some dimensions may be broadcast (stride 0).
pub fn layout(r: &mut StdRng, dt: DataType, sizes: &[u32], input: bool) -> TensorDesc {
    let rank = sizes.len();
    match r.random_range(0..4) {
        0 => TensorDesc::new(dt, sizes).unwrap(),
        _ => {
            let mut perm: Vec<usize> = (0..rank).collect();
            if r.random_bool(0.5) {
                for i in (1..rank).rev() {
                    perm.swap(i, r.random_range(0..=i));
                }
            }
            let pad: Vec<u32> = (0..rank).map(|_| if r.random_bool(0.3) { r.random_range(1..4) } else { 0 }).collect();
            let mut strides = super::cases::ordered(sizes, &perm, &pad);
            if input && r.random_bool(0.3) {
                let d = r.random_range(0..rank);
                strides[d] = 0;
            }
            // NumPy's negative strides: some dimensions read (or written) backwards.
            let reversed: Vec<usize> = (0..rank).filter(|_| r.random_bool(0.2)).collect();
            TensorDesc::with_strides(dt, sizes, &strides).unwrap().with_reversed_dims(&reversed).unwrap()
        }
    }
}

pub fn random_input(r: &mut StdRng, desc: &TensorDesc) -> Buf {
    Buf::random(desc.addressed_bytes() as usize, r.random_range(0..8), r)
}

pub fn data_type(r: &mut StdRng) -> DataType {
    DataType::ALL[r.random_range(0..DataType::ALL.len())]
}

/// Sizes of a random rank-`rank` tensor of at most a few thousand elements.
pub fn sizes(r: &mut StdRng, rank: usize) -> Vec<u32> {
    let max = [0, 70, 20, 9, 6, 4, 3, 3, 2][rank];
    (0..rank).map(|_| r.random_range(1..=max)).collect()
}
