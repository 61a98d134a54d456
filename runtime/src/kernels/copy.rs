//! A byte copy: what a RESHAPE-like op costs when the plan does not let its output alias its input.

/// Copies `bytes` bytes from arena offset `input` to arena offset `output`.
///
/// Any overlap is allowed (it is a `memmove`); `output == input` does nothing observable.
#[cfg_attr(target_os = "none", inline(never))]
pub fn copy(arena: &mut [u8], input: usize, output: usize, bytes: usize) {
    arena.copy_within(input..input + bytes, output);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_forward_and_overlapping() {
        let mut arena = [1u8, 2, 3, 4, 0, 0, 0, 0];
        copy(&mut arena, 0, 4, 4);
        assert_eq!(arena, [1, 2, 3, 4, 1, 2, 3, 4]);
        copy(&mut arena, 0, 1, 4);
        assert_eq!(arena, [1, 1, 2, 3, 4, 2, 3, 4]);
    }
}
