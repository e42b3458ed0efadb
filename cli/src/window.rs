//! NumPy-style slice expressions mapped onto DML_SLICE1 windows.
//!
//! `--slice "::2, 10:20, ::-1"` selects, per dimension, what `x[::2, 10:20, ::-1]` selects in NumPy, with Python's
//! normalization (`slice.indices`): negative indices count from the end, out-of-range bounds clamp, a negative
//! step defaults to running from the last element down to the first. Each selection of `count ≥ 1` elements
//! `first, first + step, …` becomes the tightest DML window:
//!
//! - `step > 0`: offset `first`, size `(count − 1)·step + 1`, stride `step`;
//! - `step < 0`: offset `last = first + (count − 1)·step`, size `first − last + 1`, stride `step` (DML starts a
//!   negative stride at `offset + size − 1 = first`);
//! - a single index `i` keeps its dimension with size 1 (offset `i`, size 1, stride 1): DML keeps the rank;
//! - missing trailing dimensions, `:` and `...` (once, standing for as many `:` as needed) select everything.

use anyhow::{Result, bail};

/// A DML_SLICE1 window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub offsets: Vec<u32>,
    pub sizes: Vec<u32>,
    pub strides: Vec<i32>,
}

impl Window {
    /// The whole tensor, stride 1.
    pub fn full(dims: &[u32]) -> Window {
        Window { offsets: vec![0; dims.len()], sizes: dims.to_vec(), strides: vec![1; dims.len()] }
    }

    /// The most elements each dimension's window can copy: `1 + (size − 1) / |stride|`.
    pub fn max_output_sizes(&self) -> Vec<u32> {
        self.sizes.iter().zip(&self.strides).map(|(&s, &k)| 1 + s.saturating_sub(1) / k.unsigned_abs().max(1)).collect()
    }
}

fn int(s: &str, what: &str, dim: usize) -> Result<Option<i64>> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    match s.parse::<i64>() {
        Ok(v) => Ok(Some(v)),
        Err(_) => bail!("--slice: {what} {s:?} of dimension {dim} is not an integer"),
    }
}

/// One `start:stop:step` item over a dimension of `len` elements → (offset, size, stride).
fn item(spec: &str, len: u32, dim: usize) -> Result<(u32, u32, i32)> {
    let len = i64::from(len);
    let parts: Vec<&str> = spec.split(':').collect();
    if parts.len() == 1 {
        let Some(i) = int(parts[0], "index", dim)? else { return Ok((0, len as u32, 1)) };
        let j = if i < 0 { i + len } else { i };
        if !(0..len).contains(&j) {
            bail!("--slice: index {i} is out of range for dimension {dim} of size {len}");
        }
        return Ok((j as u32, 1, 1));
    }
    if parts.len() > 3 {
        bail!("--slice: {spec:?} (dimension {dim}) has more than start:stop:step");
    }
    let step = match parts.get(2) {
        Some(s) => int(s, "step", dim)?.unwrap_or(1),
        None => 1,
    };
    if step == 0 {
        bail!("--slice: the step of dimension {dim} is 0");
    }
    if step.unsigned_abs() > i32::MAX as u64 {
        bail!("--slice: step {step} of dimension {dim} does not fit a DML window stride");
    }
    // Python's slice.indices(len).
    let norm = |v: Option<i64>, default: i64, lo: i64, hi: i64| match v {
        None => default,
        Some(v) => (if v < 0 { v + len } else { v }).clamp(lo, hi),
    };
    let (start, stop) = if step > 0 {
        (norm(int(parts[0], "start", dim)?, 0, 0, len), norm(int(parts[1], "stop", dim)?, len, 0, len))
    } else {
        (norm(int(parts[0], "start", dim)?, len - 1, -1, len - 1), norm(int(parts[1], "stop", dim)?, -1, -1, len - 1))
    };
    let count =
        if step > 0 { (stop - start + step - 1).div_euclid(step) } else { (start - stop - step - 1).div_euclid(-step) };
    if count <= 0 {
        bail!(
            "--slice: {spec:?} selects no element of dimension {dim} (size {len}); NumPy would give an empty array, but \
             DirectML tensors need every size to be at least 1"
        );
    }
    let span = (count - 1) * step.abs() + 1;
    let offset = if step > 0 { start } else { start - span + 1 };
    Ok((offset as u32, span as u32, step as i32))
}

/// Parses a slice expression for a tensor of sizes `dims`.
pub fn parse(spec: &str, dims: &[u32]) -> Result<Window> {
    let mut items: Vec<&str> = if spec.trim().is_empty() { Vec::new() } else { spec.split(',').collect() };
    let ellipses = items.iter().filter(|s| s.trim() == "...").count();
    if ellipses > 1 {
        bail!("--slice: '...' may appear only once");
    }
    if let Some(at) = items.iter().position(|s| s.trim() == "...") {
        let fill = (dims.len() + 1).saturating_sub(items.len());
        items.splice(at..=at, std::iter::repeat_n(":", fill));
    }
    if items.len() > dims.len() {
        bail!("--slice has {} entries but the input has {}", items.len(), crate::dimensions(dims.len()));
    }
    let mut w = Window::full(dims);
    for (dim, spec) in items.iter().enumerate() {
        let (o, s, k) = item(spec, dims[dim], dim)?;
        w.offsets[dim] = o;
        w.sizes[dim] = s;
        w.strides[dim] = k;
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Indices Python selects for `start:stop:step` over `len`, computed the slow way.
    fn python(start: Option<i64>, stop: Option<i64>, step: i64, len: i64) -> Vec<i64> {
        let adj = |v: i64| if v < 0 { v + len } else { v };
        let (mut i, end) = if step > 0 {
            (start.map_or(0, |v| adj(v).clamp(0, len)), stop.map_or(len, |v| adj(v).clamp(0, len)))
        } else {
            (start.map_or(len - 1, |v| adj(v).clamp(-1, len - 1)), stop.map_or(-1, |v| adj(v).clamp(-1, len - 1)))
        };
        let mut out = Vec::new();
        while (step > 0 && i < end) || (step < 0 && i > end) {
            out.push(i);
            i += step;
        }
        out
    }

    /// Indices a DML window copies.
    fn dml(o: u32, s: u32, k: i32) -> Vec<i64> {
        let count = 1 + (s - 1) / k.unsigned_abs();
        let first = if k < 0 { i64::from(o + s - 1) } else { i64::from(o) };
        (0..count as i64).map(|c| first + c * i64::from(k)).collect()
    }

    #[test]
    fn matches_python_slicing() {
        let bounds = [None, Some(-9), Some(-3), Some(-1), Some(0), Some(1), Some(3), Some(6), Some(9)];
        for len in 1..8i64 {
            for &start in &bounds {
                for &stop in &bounds {
                    for step in [-3i64, -2, -1, 1, 2, 3] {
                        let want = python(start, stop, step, len);
                        let f = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
                        let spec = format!("{}:{}:{}", f(start), f(stop), step);
                        match item(&spec, len as u32, 0) {
                            Ok((o, s, k)) => assert_eq!(dml(o, s, k), want, "{spec} over {len}"),
                            Err(_) => assert!(want.is_empty(), "{spec} over {len} should select {want:?}"),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn whole_expressions() {
        let w = parse("::2, 10:20, ::-1", &[8, 30, 5]).unwrap();
        assert_eq!(w, Window { offsets: vec![0, 10, 0], sizes: vec![7, 10, 5], strides: vec![2, 1, -1] });
        assert_eq!(w.max_output_sizes(), vec![4, 10, 5]);
        assert_eq!(
            parse("3", &[8, 4]).unwrap(),
            Window { offsets: vec![3, 0], sizes: vec![1, 4], strides: vec![1, 1] }
        );
        assert_eq!(parse("..., ::-2", &[2, 3, 5]).unwrap().strides, vec![1, 1, -2]);
        assert_eq!(parse("", &[2]).unwrap(), Window::full(&[2]));
        for bad in ["::0", "5:5", "a:b", "1,2,3", "1:2:3:4", "9", "...,...", "-9"] {
            assert!(parse(bad, &[4, 4]).is_err(), "{bad}");
        }
    }
}
