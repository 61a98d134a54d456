//! Running a child process and reading what it cost: wall time, CPU time and peak memory, from
//! `wait4`'s resource usage (the child's own and that of the descendants it waited for, so a
//! `cargo` child counts every `rustc` it ran).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished child cost.
#[derive(Clone, Copy, Debug)]
pub struct Usage {
    /// From spawn to exit.
    pub wall: Duration,
    /// User CPU time of the child and its waited-for descendants.
    pub user: Duration,
    /// System CPU time of the same.
    pub system: Duration,
    /// Peak resident memory of the largest of them, in KiB.
    pub peak_kib: u64,
    /// It exited with status 0.
    pub ok: bool,
}

/// Spawns `command` with `stdout` and `stderr` as given and waits for it with `wait4`.
pub fn run(command: &mut Command, stdout: Stdio, stderr: Stdio) -> Result<Usage, String> {
    let start = Instant::now();
    let child = command
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("{command:?}: {e}"))?;
    let pid = libc::pid_t::try_from(child.id()).map_err(|_| "pid out of range".to_string())?;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain old data for which all zeroes is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into the two locals above. `child` is not waited for
    // by std afterwards (dropping a `Child` does not wait).
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if rc != pid {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()));
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    Ok(Usage {
        wall,
        user: time(usage.ru_utime),
        system: time(usage.ru_stime),
        // Linux reports ru_maxrss in KiB.
        peak_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
        ok: libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
    })
}
