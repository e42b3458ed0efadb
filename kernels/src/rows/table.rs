//! Table rows: short rows whose innermost dimensions were absorbed into a table of element offsets (built and
//! proven by the walk), one element per entry.

use super::Body;
use crate::arch::Arch;
use crate::tables::TableLanes;

/// One element per entry of (input, output) byte offsets.
#[derive(Clone, Copy)]
pub(crate) struct TableBody<'a, A, const N: usize> {
    pub(crate) a: A,
    pub(crate) pairs: &'a [(isize, isize)],
}

impl<A: Arch, const N: usize> Body for TableBody<'_, A, N> {
    type A = A;

    #[inline(always)]
    fn arch(&self) -> A {
        self.a
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.pairs.len()
    }

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, len: usize) {
        for &(i, o) in &self.pairs[..len.min(self.pairs.len())] {
            // SAFETY: each entry is the offset of an element of the walk relative to its row base (Walk::tabulate
            // built the table from the proven dimensions), in bounds by the Rows contract.
            unsafe {
                let v = src.wrapping_offset(i).cast::<[u8; N]>().read_unaligned();
                dst.wrapping_offset(o).cast::<[u8; N]>().write_unaligned(v);
            }
        }
    }
}

/// A table row whose output is contiguous: only input offsets, sequential stores. Whole rows go through the
/// level's shuffle lanes first (as far as the lanes exist), the rest element by element.
#[derive(Clone, Copy)]
pub(crate) struct GatherTableBody<'a, A, const N: usize> {
    pub(crate) a: A,
    pub(crate) inputs: &'a [isize],
    pub(crate) lanes: &'a TableLanes,
}

impl<A: Arch, const N: usize> GatherTableBody<'_, A, N> {
    /// Moves the same prefix of `count` whole rows (`in_step` / `out_step` bytes apart) through the lanes, lane by
    /// lane (each lane's tables loaded once for all the rows); returns the elements done in each row.
    ///
    /// # Safety
    ///
    /// The rows at `src + r·in_step` / `dst + r·out_step` (r < count) are whole rows of the table, in bounds by the
    /// Rows contract.
    #[inline(always)]
    unsafe fn lanes(&self, src: *const u8, in_step: isize, dst: *mut u8, out_step: usize, count: usize) -> usize {
        let (a, t) = (self.a, self.lanes);
        if t.width != N || t.len != self.inputs.len() {
            return 0;
        }
        let mut bytes = 0;
        for lane in &t.wide {
            // SAFETY: in every row, the lane's windows lie inside the row's input span and its store inside the
            // row's output (TableLanes, built for this table's offsets and width as checked); the rows are whole.
            if unsafe { a.wide_lanes(lane, src, in_step, dst.add(bytes), out_step, count, false) } == 0 {
                break;
            }
            bytes += 64;
        }
        // (`bytes` is a multiple of 64: the pairs go on from the wide lanes.)
        let pairs = t.pairs.get(bytes / 32..).unwrap_or_default();
        if !pairs.is_empty() {
            // SAFETY: as above, for the pairs of 16-byte lanes from output byte `bytes` on.
            bytes += 32 * unsafe { a.table_pairs(pairs, src, in_step, dst.add(bytes), out_step, count) };
        }
        for lane in t.narrow.get(bytes / 16..).unwrap_or_default() {
            // SAFETY: as above, for the 16-byte lanes.
            if unsafe { a.shuffle_lanes(lane, src, in_step, dst.add(bytes), out_step, count) } == 0 {
                break;
            }
            bytes += 16;
        }
        bytes / N
    }

    /// Moves elements `from..n` of the row at `src` / `dst` one at a time.
    ///
    /// # Safety
    ///
    /// Elements `from..n` (n ≤ the table's length) of a table row in bounds by the Rows contract.
    #[inline(always)]
    unsafe fn elements(&self, src: *const u8, dst: *mut u8, from: usize, n: usize) {
        for (j, &i) in self.inputs[..n].iter().enumerate().skip(from) {
            // SAFETY: entry j is the input offset of element j of a table row, whose output is element j of the
            // row's contiguous output; both in bounds by the Rows contract (Walk::tabulate built the table).
            unsafe { gather_one::<N>(src, dst, i, j) };
        }
    }
}

impl<A: Arch, const N: usize> Body for GatherTableBody<'_, A, N> {
    type A = A;

    #[inline(always)]
    fn arch(&self) -> A {
        self.a
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.inputs.len()
    }

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, len: usize) {
        let n = len.min(self.inputs.len());
        // SAFETY: a whole row (n is the table's length), in bounds by the Rows contract.
        let done = if n == self.inputs.len() { unsafe { self.lanes(src, 0, dst, 0, 1) } } else { 0 };
        // SAFETY: elements done..n of the row, in bounds by the Rows contract.
        unsafe { self.elements(src, dst, done, n) }
    }

    // PERF: a run of whole rows goes lane by lane, each lane's tables loaded once for all the rows: the public
    // rank-8 case (VBMI) 236 → 199 ns, i16 rank-6 slices of 64 KiB with 32-byte rows 2.6 → 1.5–1.9 µs.
    #[inline(always)]
    unsafe fn run_many(
        &self,
        src: *const u8,
        dst: *mut u8,
        count: usize,
        in_step: isize,
        out_step: isize,
        len: usize,
    ) -> bool {
        let Ok(step) = usize::try_from(out_step) else { return false };
        if count < 2 || len != self.inputs.len() {
            return false;
        }
        // SAFETY: whole rows of the run, `step` apart in the output (Rows contract).
        let done = unsafe { self.lanes(src, in_step, dst, step, count) };
        if done == 0 {
            return false; // no lanes at this level: two rows at a time (`run2`)
        }
        for r in 0..count {
            let (s, d) = (src.wrapping_offset(r as isize * in_step), dst.wrapping_add(r * step));
            // SAFETY: the rest of row r of the run, whole and in bounds (Rows contract).
            unsafe { self.elements(s, d, done, len) };
        }
        true
    }

    // PERF: two rows per pass over the table: twice the independent loads in flight per offset read (the rank-8
    // public case went from 1.28 to ~1.0 µs) — when the rows do not run through lanes.
    const PAIRED: bool = true;

    #[inline(always)]
    unsafe fn run2(&self, s0: *const u8, d0: *mut u8, s1: *const u8, d1: *mut u8, len: usize) {
        if !self.lanes.narrow.is_empty() && A::ISA != crate::Isa::Scalar {
            // SAFETY: as in `run`, for both rows.
            unsafe {
                self.run(s0, d0, len);
                self.run(s1, d1, len);
            }
            return;
        }
        for (j, &i) in self.inputs[..len.min(self.inputs.len())].iter().enumerate() {
            // SAFETY: as in `run`, for both rows.
            unsafe {
                gather_one::<N>(s0, d0, i, j);
                gather_one::<N>(s1, d1, i, j);
            }
        }
    }
}

/// Copies the element at input offset `i` to output element `j`.
///
/// # Safety
///
/// Both are elements of a table row in bounds.
#[inline(always)]
unsafe fn gather_one<const N: usize>(src: *const u8, dst: *mut u8, i: isize, j: usize) {
    // SAFETY: forwarded contract; unaligned accesses.
    unsafe {
        let v = src.wrapping_offset(i).cast::<[u8; N]>().read_unaligned();
        dst.add(j * N).cast::<[u8; N]>().write_unaligned(v);
    }
}

/// A table row read contiguously (a staging buffer) and written at the output offsets of the table.
#[derive(Clone, Copy)]
pub(crate) struct ScatterTableBody<'a, A, const N: usize> {
    pub(crate) a: A,
    pub(crate) pairs: &'a [(isize, isize)],
}

impl<A: Arch, const N: usize> Body for ScatterTableBody<'_, A, N> {
    type A = A;

    #[inline(always)]
    fn arch(&self) -> A {
        self.a
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.pairs.len()
    }

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, len: usize) {
        for (j, &(_, o)) in self.pairs[..len.min(self.pairs.len())].iter().enumerate() {
            // SAFETY: element j of the contiguous source, and the output offset of element j of a table row (in
            // bounds by the Rows contract).
            unsafe {
                let v = src.add(j * N).cast::<[u8; N]>().read_unaligned();
                dst.wrapping_offset(o).cast::<[u8; N]>().write_unaligned(v);
            }
        }
    }
}
