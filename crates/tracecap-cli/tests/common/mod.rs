//! What the EasyProfiler test files share: running the tool and writing scratch files.

use std::path::PathBuf;
use std::process::Command;

/// Exit code, stdout and stderr of `tracecap args...` with the environment variables `env`.
pub fn tracecap_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tracecap"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `bytes` written to a file of the temporary directory named after `tag`, the process and
/// `name`.
pub fn tmp(tag: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!("tracecap-{tag}-{}-{name}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    p
}
