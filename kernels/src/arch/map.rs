//! Element-wise maps a transpose applies in registers, between a tile's shuffles and its stores: the identity for
//! plain transposes, `x·scale + bias` for a scale-bias that moves like one (so that it runs the identity's tiles
//! and sweeps instead of converting into a buffer first and transposing out of it).
//!
//! A map works on lanes of [`TileMap::LANE`] bytes; a tile of `N`-byte elements takes a map whose lanes divide
//! `N` (checked at compile time where the tiles are instantiated). It is applied to every register a tile stores,
//! whole or partial: lanes are independent, so lanes a partial store leaves out are computed and dropped.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::float::{f16_to_f32_scalar, f32_to_f16_scalar};

/// An element-wise map on lanes of [`TileMap::LANE`] bytes, applied to values in registers of each width a tile
/// stores.
pub(crate) trait TileMap: Copy + Send + Sync + 'static {
    /// Bytes of one lane.
    const LANE: usize;

    /// The map of one element of `N` bytes (`N` a multiple of [`TileMap::LANE`]), lane by lane.
    fn element<const N: usize>(self, x: [u8; N]) -> [u8; N];

    /// The map of the lanes of a 16-byte register.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2 and F16C, enabled in the caller.
    #[cfg(target_arch = "x86_64")]
    unsafe fn m128(self, v: __m128i) -> __m128i;

    /// The map of the lanes of a 32-byte register.
    ///
    /// # Safety
    ///
    /// As [`TileMap::m128`].
    #[cfg(target_arch = "x86_64")]
    unsafe fn m256(self, v: __m256i) -> __m256i;

    /// The map of the lanes of a 64-byte register.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F, enabled in the caller.
    #[cfg(target_arch = "x86_64")]
    unsafe fn m512(self, v: __m512i) -> __m512i;
}

/// The identity: a plain transpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ident;

impl TileMap for Ident {
    const LANE: usize = 1;

    #[inline(always)]
    fn element<const N: usize>(self, x: [u8; N]) -> [u8; N] {
        x
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn m128(self, v: __m128i) -> __m128i {
        v
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn m256(self, v: __m256i) -> __m256i {
        v
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn m512(self, v: __m512i) -> __m512i {
        v
    }
}

/// `x·scale + bias` on f32 lanes: the product, then the sum, each rounded to nearest even (never fused), as
/// [`affine_fn`](crate::convert::affine_fn) computes it. Neither parameter is a NaN (whose payload the kernels
/// define separately).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AffineF32 {
    pub(crate) scale: f32,
    pub(crate) bias: f32,
}

impl TileMap for AffineF32 {
    const LANE: usize = 4;

    #[inline(always)]
    fn element<const N: usize>(self, x: [u8; N]) -> [u8; N] {
        let mut y = x;
        for lane in y.chunks_exact_mut(4) {
            let v = f32::from_le_bytes([lane[0], lane[1], lane[2], lane[3]]);
            lane.copy_from_slice(&(v * self.scale + self.bias).to_le_bytes());
        }
        y
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn m128(self, v: __m128i) -> __m128i {
        // SAFETY: SSE2, part of the baseline.
        unsafe {
            let y = _mm_add_ps(_mm_mul_ps(_mm_castsi128_ps(v), _mm_set1_ps(self.scale)), _mm_set1_ps(self.bias));
            _mm_castps_si128(y)
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn m256(self, v: __m256i) -> __m256i {
        // SAFETY: AVX (contract).
        unsafe {
            let x = _mm256_castsi256_ps(v);
            _mm256_castps_si256(_mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(self.scale)), _mm256_set1_ps(self.bias)))
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn m512(self, v: __m512i) -> __m512i {
        // SAFETY: AVX-512F (contract).
        unsafe {
            let x = _mm512_castsi512_ps(v);
            _mm512_castps_si512(_mm512_add_ps(_mm512_mul_ps(x, _mm512_set1_ps(self.scale)), _mm512_set1_ps(self.bias)))
        }
    }
}

/// `x·scale + bias` on f16 lanes: widened exactly, the product then the sum in f32 (never fused), rounded once to
/// nearest even, as [`affine_fn`](crate::convert::affine_fn) computes it. Neither parameter is a NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AffineF16 {
    pub(crate) scale: f32,
    pub(crate) bias: f32,
}

impl AffineF16 {
    /// One f16 lane, converted in software.
    ///
    /// Out of line: the transposes move single elements in many places (corners, wrapped rows, partial tiles), and
    /// with this conversion inlined at each, the AVX-512 2-byte transposing kernel with this map took 110 KB of
    /// text (38 KB without). The elements it maps one at a time are the few a tile leaves over.
    #[inline(never)]
    fn lane(self, h: u16) -> u16 {
        f32_to_f16_scalar(f16_to_f32_scalar(h) * self.scale + self.bias)
    }

    /// Eight f16 lanes through f32.
    ///
    /// # Safety
    ///
    /// As [`TileMap::m128`].
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn eight(self, v: __m128i) -> __m128i {
        // SAFETY: AVX and F16C (contract).
        unsafe {
            let x = _mm256_cvtph_ps(v);
            let y = _mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(self.scale)), _mm256_set1_ps(self.bias));
            super::x86::cvtps_ph(y)
        }
    }

    /// Sixteen f16 lanes through f32.
    ///
    /// # Safety
    ///
    /// As [`TileMap::m512`].
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn sixteen(self, v: __m256i) -> __m256i {
        // SAFETY: AVX-512F (contract).
        unsafe {
            let x = _mm512_cvtph_ps(v);
            let y = _mm512_add_ps(_mm512_mul_ps(x, _mm512_set1_ps(self.scale)), _mm512_set1_ps(self.bias));
            super::x86::cvtps_ph16(y)
        }
    }
}

impl TileMap for AffineF16 {
    const LANE: usize = 2;

    #[inline(always)]
    fn element<const N: usize>(self, x: [u8; N]) -> [u8; N] {
        let mut y = x;
        for lane in y.chunks_exact_mut(2) {
            lane.copy_from_slice(&self.lane(u16::from_le_bytes([lane[0], lane[1]])).to_le_bytes());
        }
        y
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn m128(self, v: __m128i) -> __m128i {
        // SAFETY: forwarded contract.
        unsafe { self.eight(v) }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn m256(self, v: __m256i) -> __m256i {
        // SAFETY: forwarded contract; the halves' lanes are mapped independently.
        unsafe {
            let lo = self.eight(_mm256_castsi256_si128(v));
            let hi = self.eight(_mm256_extracti128_si256::<1>(v));
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn m512(self, v: __m512i) -> __m512i {
        // SAFETY: forwarded contract; the halves' lanes are mapped independently.
        unsafe {
            let lo = self.sixteen(_mm512_castsi512_si256(v));
            let hi = self.sixteen(_mm512_extracti64x4_epi64::<1>(v));
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
        }
    }
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
mod tests {
    use super::*;

    #[test]
    fn element_maps_every_lane() {
        let m = AffineF32 { scale: 2.0, bias: 0.5 };
        let x: Vec<u8> = [1.0f32, -3.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        let y = m.element::<8>(x.try_into().unwrap());
        assert_eq!(f32::from_le_bytes(y[..4].try_into().unwrap()), 2.5);
        assert_eq!(f32::from_le_bytes(y[4..].try_into().unwrap()), -5.5);
        let h = AffineF16 { scale: 0.5, bias: 1.0 };
        // 3.0 and 1.0 in f16: 0x4200, 0x3C00 → 2.5 (0x4100), 1.5 (0x3E00).
        let y = h.element::<4>([0x00, 0x42, 0x00, 0x3C]);
        assert_eq!(y, [0x00, 0x41, 0x00, 0x3E]);
        assert_eq!(Ident.element::<2>([7, 9]), [7, 9]);
    }
}
