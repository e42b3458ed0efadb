//! `.npy` files as strider tensors: read any supported dtype in C or Fortran order (Fortran order is just another
//! stride set, read without transposing), write packed C-order files atomically.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use npyz::{DType, NpyFile, Order, TypeChar, WriterBuilder};
use strider::{DataType, TensorDesc};

/// Evaluates `$body` with `$t` bound to the Rust element type of a strider data type.
macro_rules! with_element_type {
    ($dt:expr, $t:ident => $body:expr) => {
        match $dt {
            DataType::Float16 => {
                type $t = half::f16;
                $body
            }
            DataType::Float32 => {
                type $t = f32;
                $body
            }
            DataType::Float64 => {
                type $t = f64;
                $body
            }
            DataType::Int8 => {
                type $t = i8;
                $body
            }
            DataType::Int16 => {
                type $t = i16;
                $body
            }
            DataType::Int32 => {
                type $t = i32;
                $body
            }
            DataType::Int64 => {
                type $t = i64;
                $body
            }
            DataType::Uint8 => {
                type $t = u8;
                $body
            }
            DataType::Uint16 => {
                type $t = u16;
                $body
            }
            DataType::Uint32 => {
                type $t = u32;
                $body
            }
            DataType::Uint64 => {
                type $t = u64;
                $body
            }
            other => bail!("unsupported data type {other}"),
        }
    };
}

/// A tensor read from a `.npy` file: its description and its raw little-endian bytes.
pub struct Tensor {
    pub desc: TensorDesc,
    pub bytes: Vec<u8>,
}

/// The strider data type of a numpy dtype, or an error naming it.
fn data_type(dtype: &DType) -> Result<DataType> {
    let DType::Plain(ts) = dtype else {
        bail!("unsupported dtype {}: structured arrays are not tensors", dtype.descr());
    };
    let dt = match (ts.type_char(), ts.size_field()) {
        (TypeChar::Float, 2) => DataType::Float16,
        (TypeChar::Float, 4) => DataType::Float32,
        (TypeChar::Float, 8) => DataType::Float64,
        (TypeChar::Int, 1) => DataType::Int8,
        (TypeChar::Int, 2) => DataType::Int16,
        (TypeChar::Int, 4) => DataType::Int32,
        (TypeChar::Int, 8) => DataType::Int64,
        (TypeChar::Uint, 1) => DataType::Uint8,
        (TypeChar::Uint, 2) => DataType::Uint16,
        (TypeChar::Uint, 4) => DataType::Uint32,
        (TypeChar::Uint, 8) => DataType::Uint64,
        _ => bail!("unsupported dtype {ts}: strider copies float16/32/64, int8/16/32/64 and uint8/16/32/64 tensors"),
    };
    Ok(dt)
}

/// Reads `path` into a tensor description and its bytes.
///
/// # Errors
///
/// An unreadable file, or anything [`parse`] rejects; the message names the file.
pub fn read(path: &Path) -> Result<Tensor> {
    if path.is_dir() {
        bail!("{} is a directory, not a .npy file", path.display());
    }
    let bytes = std::fs::read(path).with_context(|| format!("cannot open {}", path.display()))?;
    parse(&bytes).with_context(|| path.display().to_string())
}

/// Parses the bytes of a `.npy` file: its header into a tensor description (C order: packed; Fortran order:
/// column-major strides), its data into native little-endian bytes. The shape is checked against the data present
/// before anything is allocated for it.
///
/// # Errors
///
/// Not a `.npy` file, an unsupported dtype (structured, complex, bool, strings), 0 or more than 8 dimensions, a size
/// of 0 or beyond 32 bits, a tensor too large to describe, or data shorter or longer than the shape.
pub fn parse(file: &[u8]) -> Result<Tensor> {
    let npy = match NpyFile::new(file) {
        Ok(npy) => npy,
        // The reader runs out of bytes inside the header: say so rather than "failed to fill whole buffer".
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && file.starts_with(b"\x93NUMPY") => {
            bail!("the .npy header is truncated ({} bytes in all)", file.len())
        }
        Err(e) => return Err(anyhow!(e).context("not a valid .npy file")),
    };
    let dt = data_type(&npy.dtype())?;
    let shape = npy.shape().to_vec();
    if shape.is_empty() || shape.len() > strider::MAX_RANK {
        bail!("{} dimensions; strider tensors have 1 to 8", shape.len());
    }
    let mut sizes = Vec::with_capacity(shape.len());
    for (dim, &n) in shape.iter().enumerate() {
        match u32::try_from(n) {
            Ok(0) => bail!(
                "size of dimension {dim} is 0: the array is empty, and DirectML tensors need every size to be at least 1"
            ),
            Ok(n) => sizes.push(n),
            Err(_) => bail!("size {n} of dimension {dim} does not fit in 32 bits"),
        }
    }
    let desc = match npy.order() {
        Order::C => TensorDesc::new(dt, &sizes),
        Order::Fortran => {
            // Column-major: the first dimension is contiguous.
            let mut strides = Vec::with_capacity(sizes.len());
            let mut acc = 1u64;
            for &n in &sizes {
                strides.push(u32::try_from(acc).map_err(|_| anyhow!("the tensor is too large"))?);
                acc = acc.checked_mul(u64::from(n)).ok_or_else(|| anyhow!("the tensor is too large"))?;
            }
            TensorDesc::with_strides(dt, &sizes, &strides)
        }
    }
    .context("cannot describe the tensor")?;
    // The data follows the header: a shape needing more bytes than the whole file holds is truncated, whatever
    // the header claims, and is rejected before its elements are allocated.
    if desc.addressed_bytes() > file.len() as u64 {
        bail!(
            "truncated: the shape needs {} data bytes, the file holds {} bytes in all",
            desc.addressed_bytes(),
            file.len()
        );
    }
    let bytes = read_data(npy, dt).context("truncated or unreadable data")?;
    if bytes.len() as u64 != desc.addressed_bytes() {
        bail!("holds {} data bytes, its shape needs {}", bytes.len(), desc.addressed_bytes());
    }
    Ok(Tensor { desc, bytes })
}

/// Reads the elements in file order as native little-endian bytes (npyz converts big-endian files).
fn read_data<R: std::io::Read>(npy: NpyFile<R>, dt: DataType) -> Result<Vec<u8>> {
    Ok(with_element_type!(dt, T => bytemuck::cast_slice::<T, u8>(&npy.into_vec::<T>()?).to_vec()))
}

/// Writes a packed C-order `.npy` of `sizes` holding `bytes`, atomically: the data goes to a temporary file in the
/// same directory, renamed over `path` only once complete, so a failure leaves no partial output behind.
pub fn write(path: &Path, dt: DataType, sizes: &[u32], bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    {
        let mut out = BufWriter::new(tmp.as_file());
        let shape: Vec<u64> = sizes.iter().map(|&n| u64::from(n)).collect();
        with_element_type!(dt, T => {
            let mut w = npyz::WriteOptions::<T>::new().default_dtype().shape(&shape).writer(&mut out).begin_nd()?;
            w.extend(bytes.chunks_exact(size_of::<T>()).map(bytemuck::pod_read_unaligned::<T>))?;
            w.finish()?;
        });
        out.flush().with_context(|| format!("cannot write {}", path.display()))?;
    }
    crate::persist(tmp, path)
}
