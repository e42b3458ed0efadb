//! The portable level: a `u64` is the register, so the generic loops still move 8 bytes at a time where a plain
//! integer operation expresses the permutation (a byte reverse is one `bswap`).

use pulp::NullaryFnOnce;

use super::{Arch, Isa};

/// The scalar level's token (every CPU runs it).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Scalar;

// SAFETY: the scalar level uses no instruction beyond the compilation target's baseline.
unsafe impl Arch for Scalar {
    const ISA: Isa = Isa::Scalar;
    const BYTES: usize = 8;
    type Reg = u64;
    type Base = Self;

    #[inline(always)]
    fn base(self) -> Self {
        self
    }

    #[inline(always)]
    unsafe fn assume() -> Self {
        Scalar
    }

    #[inline(always)]
    fn vectorize<F: NullaryFnOnce>(self, f: F) -> F::Output {
        // One compiled copy of each job, as at the vector levels (whose target-feature functions do not inline into
        // their callers): a run of rows and a span of the same kernel share theirs (−190 KB of `.text`).
        #[inline(never)]
        fn imp<F: NullaryFnOnce>(f: F) -> F::Output {
            f.call()
        }
        imp(f)
    }

    #[inline(always)]
    unsafe fn load(self, p: *const u8) -> u64 {
        // SAFETY: 8 readable bytes (contract).
        unsafe { p.cast::<u64>().read_unaligned() }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut u8, v: u64) {
        // SAFETY: 8 writable bytes (contract).
        unsafe { p.cast::<u64>().write_unaligned(v) }
    }

    #[inline(always)]
    unsafe fn stream(self, p: *mut u8, v: u64) {
        // SAFETY: as `store`.
        unsafe { self.store(p, v) }
    }

    #[inline(always)]
    fn reverses(n: usize) -> bool {
        matches!(n, 1 | 2 | 4 | 8)
    }

    #[inline(always)]
    fn reverse<const N: usize>(self, v: u64) -> u64 {
        match N {
            1 => v.swap_bytes(),
            2 => {
                let v = v.rotate_left(32);
                ((v & 0x0000_FFFF_0000_FFFF) << 16) | ((v >> 16) & 0x0000_FFFF_0000_FFFF)
            }
            4 => v.rotate_left(32),
            _ => v,
        }
    }

    #[inline(always)]
    fn picks(n: usize) -> bool {
        n == 4
    }

    #[inline(always)]
    fn pick2<const N: usize, const NEG: bool>(self, a: u64, b: u64) -> u64 {
        // Four 4-byte elements t0 t1 (in a) t2 t3 (in b), little-endian: even → t0 t2, odd reversed → t3 t1.
        if NEG { (b >> 32) | (a & 0xFFFF_FFFF_0000_0000) } else { (a & 0xFFFF_FFFF) | (b << 32) }
    }
}
