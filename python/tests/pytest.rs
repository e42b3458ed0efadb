//! Takes the extension module cargo built for this test, puts it on `PYTHONPATH` as `strider`, and runs the pytest
//! suite (`test_*.py` beside this file) with a Python that has NumPy, pytest, onnx, and Pillow and OpenCV (the
//! resize oracles): `STRIDER_PYTHON` when set, else `python3` when it has them all, else a virtual environment
//! created once in the target directory with them installed from the Python registry.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Copies the extension module cargo built beside this test executable (`<target>/<profile>/deps/`) into a
/// directory, as `strider.so`, and returns that directory. The crate's library is also an `rlib`, so cargo builds it,
/// with the features of this very test build, before it builds this test: the module is always this checkout's, and
/// no second `cargo build` (whose feature resolution would differ and recompile the kernels) runs.
fn module_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let built = exe.parent().expect("<target>/<profile>/deps").join("libstrider_python.so");
    assert!(built.is_file(), "{} missing beside the test", built.display());
    let module = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-module");
    std::fs::create_dir_all(&module).unwrap();
    // A fresh file (not an overwrite in place): a running interpreter may still map the old one.
    let dest = module.join("strider.so");
    let _ = std::fs::remove_file(&dest);
    std::fs::copy(&built, &dest).expect("copy the extension module");
    module
}

fn has_packages(python: &Path) -> bool {
    Command::new(python).args(["-c", "import numpy, pytest, onnx, PIL, cv2"]).output().is_ok_and(|o| o.status.success())
}

/// A Python with NumPy and pytest.
fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("STRIDER_PYTHON") {
        return PathBuf::from(p);
    }
    let system = PathBuf::from("python3");
    if has_packages(&system) {
        return system;
    }
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pytest-venv");
    let python = venv.join("bin/python");
    if !has_packages(&python) {
        let status = Command::new("python3").args(["-m", "venv"]).arg(&venv).status().expect("run python3 -m venv");
        assert!(status.success(), "python3 -m venv {} failed", venv.display());
        let status = Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "numpy", "pytest", "onnx"])
            .args(["pillow", "opencv-python-headless"])
            .status()
            .expect("run pip");
        assert!(
            status.success(),
            "pip install numpy pytest onnx pillow opencv-python-headless failed (the Python registry must be reachable)"
        );
    }
    python
}

#[test]
fn pytest_suite() {
    let module = module_dir();
    let python = python();
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let status = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(&tests)
        .env("PYTHONPATH", &module)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .status()
        .expect("run pytest");
    assert!(status.success(), "pytest failed ({} -m pytest {})", python.display(), tests.display());
}
